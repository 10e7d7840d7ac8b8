public import Dispatch

/// A serial executor that runs jobs on one dispatch queue.
///
/// The queue is the one context that owns a connection's libdbus state. Actors
/// that work closely with a connection (the object server, the BlueZ mirror,
/// the mock adapter) share its executor, so libdbus callbacks reach them
/// without hops and `assumeIsolated` holds.
public final class QueueExecutor: SerialExecutor {
    /// The queue every job of this executor runs on.
    public let queue: DispatchQueue

    /// Creates an executor with a new serial queue.
    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `job` on the queue, after the jobs already there.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// This executor, unowned, for actors that run on it.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed in plain queue blocks (libdbus callbacks).
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
