// A Swagger UI plugin for protorest's streams. Try-it on an operation
// whose x-protorest-streaming is "server" or "bidi" asks for the media
// type chosen, or the first the document lists (Server-Sent Events), not
// */*, and shows the response as it arrives: Swagger UI reads a response
// whole before it shows it, so the plugin reads a streamed response
// itself (Server-Sent Events, NDJSON or grpc-gateway's JSON lines),
// showing what has come after each chunk, and hands Swagger UI the whole
// text at the end. A response body
// of JSON values one per line, which Swagger UI cannot parse as one JSON
// value ("can't parse JSON"), is shown as its lines. Same-origin fetches
// only, as the page's Content-Security-Policy requires.
"use strict";

// streamedType: the response types read as they arrive.
const streamedType = /^(text\/event-stream|application\/x-ndjson|application\/json)\b/i;

// readShowing reads the body of res, a streamed response, calling show
// with the text so far after each chunk, and returns the whole text.
async function readShowing(res, show) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return text + decoder.decode();
    }
    text += decoder.decode(value, { stream: true });
    show(text);
  }
}

// streamingFetch is the fetch of Try-it on a streaming operation at
// path and method: it shows each chunk as Swagger UI shows a response,
// then returns the response, read, for Swagger UI to show once more
// (with its duration) as it does any.
function streamingFetch(system, path, method) {
  return async (url, init) => {
    const start = performance.now();
    const res = await fetch(url, init);
    if (!res.ok || !res.body || !streamedType.test(res.headers.get("Content-Type") || "")) {
      return res;
    }
    const headers = {};
    res.headers.forEach((value, name) => { headers[name] = value; });
    const text = await readShowing(res, (text) => {
      system.specActions.setResponse(path, method, {
        ok: res.ok, url: res.url, status: res.status, statusText: res.statusText, headers,
        text, data: text, duration: Math.round(performance.now() - start),
      });
    });
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

// firstResponseType returns the first media type of the first success
// response of operation (an Immutable map, in the document's order), or
// undefined.
function firstResponseType(operation) {
  const responses = operation.get("responses");
  const ok = responses && responses.findKey((_, code) => /^2/.test(String(code)));
  const content = ok && responses.getIn([ok, "content"]);
  return content && content.keySeq().first();
}

// jsonLines returns content as its lines when it is JSON values one per
// line (more than one), or null.
function jsonLines(content) {
  if (typeof content !== "string" || !content.includes("\n")) {
    return null;
  }
  try {
    JSON.parse(content);
    return null; // one value: Swagger UI shows it
  } catch (e) {
    // Lines, perhaps.
  }
  const lines = content.split("\n").filter((line) => line.trim() !== "");
  try {
    lines.forEach((line) => JSON.parse(line));
  } catch (e) {
    return null;
  }
  return lines.join("\n");
}

window.protorestStreams = function protorestStreams() {
  return {
    statePlugins: {
      spec: {
        wrapActions: {
          executeRequest: (execute, system) => (req) => {
            const streaming = req.operation && req.operation.get("x-protorest-streaming");
            if (streaming === "server" || streaming === "bidi") {
              // Swagger UI sends Accept: */* until a media type is chosen,
              // and the gateway answers */* with grpc-gateway's JSON lines:
              // ask for the first type the document lists.
              const { pathName, method } = req;
              const first = firstResponseType(req.operation);
              if (first && !system.oas3Selectors.responseContentType(pathName, method)) {
                system.oas3Actions.setResponseContentType({ value: first, path: pathName, method });
              }
              req.userFetch = streamingFetch(system, pathName, method);
            }
            return execute(req);
          },
        },
      },
    },
    wrapComponents: {
      responseBody: (ResponseBody, system) => (props) => {
        const lines = /json/i.test(props.contentType || "") ? jsonLines(props.content) : null;
        if (lines === null) {
          return system.React.createElement(ResponseBody, props);
        }
        return system.React.createElement(ResponseBody, { ...props, content: lines, contentType: "text/plain" });
      },
    },
  };
};
