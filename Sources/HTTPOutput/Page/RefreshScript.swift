/// `/refresh.js`: every 10 s while the page is visible, fetches the page again and swaps
/// in its `<main>`, so values and plots move without a reload; on failure it marks the
/// page offline and tries again. Without JavaScript, the page's `<noscript>` refresh reloads it.
enum RefreshScript {
    static let text = """
        "use strict";
        (function () {
          var busy = false;
          function refresh() {
            if (busy || document.hidden) { return; }
            busy = true;
            fetch(location.href, { cache: "no-store" })
              .then(function (response) {
                if (!response.ok) { throw new Error("HTTP " + response.status); }
                return response.text();
              })
              .then(function (html) {
                var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
                var current = document.querySelector("main");
                if (fresh && current) { current.replaceWith(fresh); }
                document.documentElement.classList.remove("offline");
              })
              .catch(function () { document.documentElement.classList.add("offline"); })
              .then(function () { busy = false; });
          }
          setInterval(refresh, 10000);
          document.addEventListener("visibilitychange", refresh);
        })();

        """

    static let response = HTTPResponse(
        contentType: "text/javascript; charset=utf-8", body: Array(text.utf8),
        headers: [(name: "Cache-Control", value: "max-age=3600"), (name: "X-Content-Type-Options", value: "nosniff")])
}
