// The docs page: Swagger UI on the OpenAPI document named by
// #swagger-ui's data-document (a URL relative to the page). No request
// leaves the page's origin: no validator badge, no configuration read from
// the query string. When the page is drawn, body gets data-docs-ready="1"
// (the end-to-end check waits for it). Streams show as they arrive
// (streams.js, loaded before).
"use strict";
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.document,
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [window.protorestStreams],
    layout: "BaseLayout",
    deepLinking: true,
    validatorUrl: null,
    queryConfigEnabled: false,
    onComplete: () => { document.body.dataset.docsReady = "1"; },
  });
});
