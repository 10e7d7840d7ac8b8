public import UnixSupport

/// ``UnixSupport/Locked``, under the name DBusCore's users know it by.
public typealias Locked = UnixSupport.Locked
