/// Process exit statuses shared by the executables (sysexits.h where one applies).
public enum ExitCode {
    /// Everything worked.
    public static let success: Int32 = 0
    /// A runtime failure: the daemon is unreachable, a request failed.
    public static let failure: Int32 = 1
    /// `EX_USAGE`: the command line was wrong.
    public static let usage: Int32 = 64
    /// `EX_TEMPFAIL`: not now, but later may work (blectld: another one serves its socket).
    public static let temporaryFailure: Int32 = 75
    /// `EX_CONFIG`: the configuration file was wrong.
    public static let configuration: Int32 = 78
}
