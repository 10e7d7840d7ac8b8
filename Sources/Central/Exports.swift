public import BlueZClient
public import ThermometerProfiles

// The profile types a user of the central configures it with, so that it imports `Central`
// (and the shared `SensorModel`) and never reaches past it to the layers below.

/// A Bluetooth UUID in BlueZ's 128-bit form.
public typealias BluetoothUUID = ThermometerProfiles.BluetoothUUID
/// The thermometer profiles by service UUID.
public typealias ProfileRegistry = ThermometerProfiles.ProfileRegistry
/// A way of decoding temperatures, selected by service UUID.
public typealias ThermometerProfile = ThermometerProfiles.ThermometerProfile
/// The Raspberry Pi cputemp profile (text values, both UUID spellings).
public typealias PiCPUTemperatureProfile = ThermometerProfiles.PiCPUTemperatureProfile
/// The Bluetooth SIG Health Thermometer profile.
public typealias HealthThermometerProfile = ThermometerProfiles.HealthThermometerProfile
/// The Bluetooth SIG Environmental Sensing profile.
public typealias EnvironmentalSensingProfile = ThermometerProfiles.EnvironmentalSensingProfile
/// The AES key of a sensor that encrypts its advertisements (BTHome, Xiaomi MiBeacon).
public typealias AdvertisementKey = ThermometerProfiles.AdvertisementKey
/// A BlueZ error, classified (from the BlueZ client layer).
public typealias BlueZError = BlueZClient.BlueZError
/// The advertisement formats known.
public typealias AdvertisementRegistry = ThermometerProfiles.AdvertisementRegistry
/// Resets a controller below bluetoothd (from the BlueZ client layer; tests stub it).
public typealias ControllerResetting = BlueZClient.ControllerResetting
/// Why a controller reset failed (from the BlueZ client layer).
public typealias ControllerResetError = BlueZClient.ControllerResetError
/// The sensor families known, declared by their profiles.
public typealias KnownSensors = ThermometerProfiles.KnownSensors
/// The gateway's own CPU temperature as a sensor family.
public typealias HostCPUProfile = ThermometerProfiles.HostCPUProfile
