import Central
import MockBlueZ
import SensorModel
import Testing

/// A ThermoPro TP358's display clock: set by one write, never read back.
extension MemoryReaderTests {
    static let thermoPro = "49:22:05:EC:00:01"

    static func thermoProScenario(drift: Int64 = -7200) -> MockScenario {
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        scenario.timings = .fast
        var memory = MockSensorMemory()
        memory.clockDrift = drift
        scenario.addThermoProClockSensors(1, memory: memory, interval: .milliseconds(200))
        return scenario
    }

    static func thermoProVisit() -> MemoryReadRequest {
        var request = request(setClock: true, synchronized: true, of: (thermoPro, "thermopro"))
        request.clockOnly = true
        return request
    }

    @Test func aThermoProClockIsSetByOneWriteAndNothingIsRead() async throws {
        try await Self.withSensor(Self.thermoProScenario(), address: Self.thermoPro) { fixture, monitor in
            let before = try await fixture.mock.sensorMemory(address: Self.thermoPro)
            #expect(abs(Int64(before.sensorTime) - Self.unixNow() + 7200) <= 2)
            let started = Self.unixNow()
            let visit = await monitor.readMemory(Self.thermoProVisit()) { _ in }
            let ended = Self.unixNow()
            #expect(visit.end == .finished, "\(visit)")
            #expect(visit.clock == .set)
            #expect(visit.drift == nil, "the clock cannot be read")
            #expect(visit.received == 0)
            // The mock turned the local time written back into seconds with this machine's
            // zone: a time of the visit (whole seconds: a second either side).
            let after = try await fixture.mock.sensorMemory(address: Self.thermoPro)
            #expect((started - 1...ended + 1).contains(Int64(after.lastSetTime)), "\(after)")
            // It runs from the time written, which the write's own delay leaves behind.
            #expect(abs(Int64(after.sensorTime) - Self.unixNow()) <= ended - started + 2)
        }
    }

    @Test func aRefusedThermoProClockWriteIsReported() async throws {
        try await Self.withSensor(Self.thermoProScenario(), address: Self.thermoPro) { fixture, monitor in
            try await fixture.mock.inject(.sensorMemory(.refuseClockWrite(times: 1), address: Self.thermoPro))
            let visit = await monitor.readMemory(Self.thermoProVisit()) { _ in }
            guard case .refused = visit.clock else {
                Issue.record("expected a refusal, got \(visit.clock)")
                return
            }
            let after = try await fixture.mock.sensorMemory(address: Self.thermoPro)
            #expect(after.lastSetTime == 0)
        }
    }
}
