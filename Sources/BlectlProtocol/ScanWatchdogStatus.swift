/// The scan watchdog and its recovery ladder: part of `status` while the watchdog is on.
///
/// Discovery that hears nothing from any device for ``periodSeconds`` while devices are
/// expected climbs the ladder: restart discovery, power-cycle the adapter, reset the
/// controller (only with ``adapterReset``).
public struct ScanWatchdogStatus: Codable, Equatable, Sendable {
    /// `scan_watchdog`: silent discovery before the first step, in seconds.
    public var periodSeconds: Double
    /// `adapter_reset`: whether the controller reset (the last step) is allowed.
    public var adapterReset: Bool
    /// Whether the adapter is silent now: a step was taken and nothing heard since.
    public var silent: Bool
    /// Discovery restarts (step 1) since start.
    public var discoveryRestarts: Int
    /// Adapter power cycles (step 2) since start.
    public var powerCycles: Int
    /// Controller resets (step 3) since start, failed ones included.
    public var controllerResets: Int
    /// Controller resets that failed (no `CAP_NET_ADMIN`, say).
    public var controllerResetFailures: Int
    /// Times devices were heard again after a step.
    public var recoveries: Int
    /// The last step taken: `restart_discovery`, `power_cycle` or `reset_controller`.
    public var lastStep: String?
    /// The step after which devices were last heard again.
    public var lastRecoveredBy: String?

    /// Creates a status.
    public init(
        periodSeconds: Double, adapterReset: Bool, silent: Bool = false, discoveryRestarts: Int = 0,
        powerCycles: Int = 0, controllerResets: Int = 0, controllerResetFailures: Int = 0, recoveries: Int = 0,
        lastStep: String? = nil, lastRecoveredBy: String? = nil
    ) {
        self.periodSeconds = periodSeconds
        self.adapterReset = adapterReset
        self.silent = silent
        self.discoveryRestarts = discoveryRestarts
        self.powerCycles = powerCycles
        self.controllerResets = controllerResets
        self.controllerResetFailures = controllerResetFailures
        self.recoveries = recoveries
        self.lastStep = lastStep
        self.lastRecoveredBy = lastRecoveredBy
    }

    private enum CodingKeys: String, CodingKey {
        case silent, recoveries
        case periodSeconds = "period_seconds"
        case adapterReset = "adapter_reset"
        case discoveryRestarts = "discovery_restarts"
        case powerCycles = "power_cycles"
        case controllerResets = "controller_resets"
        case controllerResetFailures = "controller_reset_failures"
        case lastStep = "last_step"
        case lastRecoveredBy = "last_recovered_by"
    }
}
