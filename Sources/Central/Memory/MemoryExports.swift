public import ThermometerProfiles

// The sensor-memory types a user of the central reads, so that it imports `Central` alone.

/// A sensor's memory and clock protocol over GATT.
public typealias SensorMemoryProtocol = ThermometerProfiles.SensorMemoryProtocol
/// The memory protocols known, by advertising family.
public typealias SensorMemoryProtocols = ThermometerProfiles.SensorMemoryProtocols
/// One record of a sensor's memory.
public typealias SensorMemoryRecord = ThermometerProfiles.SensorMemoryRecord
/// Why a memory notification was refused.
public typealias SensorMemoryError = ThermometerProfiles.SensorMemoryError
/// One download's bookkeeping (its ``SensorMemoryDownload/End``).
public typealias SensorMemoryDownload = ThermometerProfiles.SensorMemoryDownload
