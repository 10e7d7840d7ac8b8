/// The page's style sheet: light by default, dark when the system prefers it; one column
/// of cards on a phone, as many as fit on a desktop. System fonts only.
enum PageStyle {
    static let css = """
        :root{--bg:#f6f7f9;--card:#fff;--text:#1c1f24;--muted:#5f6773;--line:#c2410c;--axis:#c9ced6;\
        --ok:#15803d;--warn:#b45309;--link:#1d4ed8}
        @media (prefers-color-scheme:dark){:root{--bg:#111418;--card:#1b2027;--text:#e6e9ee;--muted:#9aa3af;\
        --line:#fb923c;--axis:#3a424d;--ok:#4ade80;--warn:#fbbf24;--link:#93c5fd}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--text);font:16px/1.4 system-ui,-apple-system,"Segoe UI",\
        Roboto,sans-serif}
        main{max-width:80rem;margin:0 auto;padding:1rem;display:grid;gap:1rem;\
        grid-template-columns:repeat(auto-fill,minmax(min(100%,26rem),1fr))}
        header,footer,.none,.adapters{grid-column:1/-1}
        .adapters{border-collapse:collapse;font-size:.9rem;background:var(--card);border-radius:.6rem}
        .adapters caption{text-align:left;font-weight:600;padding:.2rem 0}
        .adapters th,.adapters td{text-align:left;padding:.3rem .8rem}
        .adapters .off td,.adapters .missing td{color:var(--warn)}
        h1{font-size:1.5rem;margin:0}
        h2{font-size:1.15rem;margin:0}
        .summary,.identity,.state,footer{color:var(--muted);font-size:.9rem;margin:.2rem 0}
        nav a{margin-right:.6rem}
        a{color:var(--link)}
        a[aria-current]{font-weight:600;text-decoration:none;color:var(--text)}
        .device{background:var(--card);border-radius:.6rem;padding:1rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
        .values{margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:baseline}
        .temperature{font-size:2rem;font-weight:600}
        .age{color:var(--muted);font-size:.9rem}
        .device:not(.stale) .state{color:var(--ok)}
        .stale .state,.stale .temperature{color:var(--warn)}
        .reception{color:var(--muted)}
        .memory{color:var(--muted);margin-top:0}
        .address,.profile{font-family:ui-monospace,monospace}
        svg.plot{width:100%;height:auto;display:block;margin-top:.5rem}
        svg .line{fill:none;stroke:var(--line);stroke-width:2;stroke-linejoin:round;stroke-linecap:round}
        svg .axis{fill:none;stroke:var(--axis);stroke-width:1}
        svg text{fill:var(--muted);font-size:12px}
        svg .empty{font-size:14px}
        .offline footer::after{content:" · offline";color:var(--warn)}
        """
}
