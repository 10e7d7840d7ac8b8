extension Actor {
    /// Runs `operation` isolated to this actor with `argument`, from code that already runs
    /// on the actor's executor but is not statically isolated to it (a libdbus callback,
    /// another actor on the same event loop); traps when it does not, as `assumeIsolated`.
    ///
    /// For the paths every notification takes: `assumeIsolated` makes two heap allocations
    /// per call (its closure is made escaping, then re-abstracted), this none, provided
    /// `operation` captures nothing. Pass what it needs as `argument`. Always inlined: a
    /// specialization left out of line boxes the cast closure (one allocation per call, seen
    /// once the hub's event outgrew the registers).
    @inlinable @inline(__always)
    public nonisolated func assumeIsolated<Argument: Sendable, Result: Sendable>(
        passing argument: Argument, _ operation: @escaping (isolated Self, Argument) -> Result
    ) -> Result {
        preconditionIsolated()
        // What `assumeIsolated` does too: the isolated and plain function types share one
        // calling convention, and the check above makes the isolation true.
        return unsafeBitCast(operation, to: ((Self, Argument) -> Result).self)(self, argument)
    }
}
