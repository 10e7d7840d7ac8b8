import BlectlProtocol
import ReadingHub

/// What each path answers.
struct Routes: Sendable {
    let hub: Hub
    let tracker = DeviceTracker()
    let hoursRange: ClosedRange<Double>
    let now: @Sendable () -> Timestamp
    private let snapshots: Coalescing<Int, HubSnapshot>
    private let pages: Coalescing<Int64, HTTPResponse>
    private let metrics: Coalescing<Int, HTTPResponse>
    private let plots: PlotCache
    /// The page and the history API read the history store: two at a time.
    private let historyGate = WorkGate(width: 2)

    init(hub: Hub, hoursRange: ClosedRange<Double>, now: @escaping @Sendable () -> Timestamp) {
        self.hub = hub
        self.hoursRange = hoursRange
        self.now = now
        let tracker = tracker
        snapshots = Coalescing { _ in await HubSnapshot.take(hub: hub, tracker: tracker, now: now()) }
        let plots = PlotCache(hub: hub)
        self.plots = plots
        let snapshots = snapshots
        metrics = Coalescing { _ in Self.metrics(await snapshots.value(for: 0)) }
        let gate = historyGate
        pages = Coalescing { windowSeconds in
            await gate.run {
                await Self.page(
                    window: .seconds(windowSeconds), snapshot: await snapshots.value(for: 0), plots: plots)
            }
        }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/": return await page(request)
        case "/metrics": return await metrics.value(for: 0)
        case "/api/status": return APIRoutes.status(await snapshots.value(for: 0))
        case "/api/devices": return APIRoutes.devices(await snapshots.value(for: 0))
        case "/api/history":
            let hub = hub
            return await historyGate.run { await APIRoutes.history(request, hub: hub) }
        case "/refresh.js": return RefreshScript.response
        default: return .text(404, "not found: \(request.path) (try /, /metrics, /api/devices)")
        }
    }

    private func page(_ request: HTTPRequest) async -> HTTPResponse {
        var hours = 24.0
        if let text = request.query["hours"] {
            guard let value = Double(text), hoursRange.contains(value) else {
                return .text(
                    400,
                    "hours must be a number from \(decimal(hoursRange.lowerBound, digits: 1)) "
                        + "to \(decimal(hoursRange.upperBound, digits: 1)), got \"\(text)\"")
            }
            hours = value
        }
        return await pages.value(for: Int64((hours * 3600).rounded()))
    }

    private static func metrics(_ snapshot: HubSnapshot) -> HTTPResponse {
        let text = MetricsPage.render(snapshot, process: .current())
        return HTTPResponse(
            contentType: PrometheusText.contentType, body: Array(text.utf8),
            headers: [(name: "Cache-Control", value: "no-store")])
    }

    private static func page(window: Duration, snapshot: HubSnapshot, plots: PlotCache) async -> HTTPResponse {
        var devices: [DashboardPage.Device] = []
        for view in snapshot.devices {
            let points = await plots.points(address: view.address, window: window, now: snapshot.time)
            devices.append(DashboardPage.Device(view: view, points: points))
        }
        let html = DashboardPage(snapshot: snapshot, devices: devices, window: window).render()
        return HTTPResponse(
            contentType: "text/html; charset=utf-8", body: Array(html.utf8), headers: DashboardPage.headers)
    }
}
