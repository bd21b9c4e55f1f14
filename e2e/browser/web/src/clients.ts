// The calls e2e/browser/check.py makes from a page of another origin than
// the demo's, with the real clients: @connectrpc/connect-web and grpc-web.
// Each function returns the facts it saw, as JSON, for check.py to judge;
// a failure is {error: "..."} rather than an exception.
import { create, fromBinary } from "@bufbuild/protobuf";
import { anyUnpack, timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { GrpcWebClientBase, RpcError } from "grpc-web";

import { BookService, GetBookRequestSchema } from "./gen/bookstore/v1/bookstore_pb";
import { EchoRequestSchema, MySvc, WatchRequestSchema } from "./gen/example/v1/example_pb";
import { type BadRequest, BadRequestSchema } from "./gen/google/rpc/error_details_pb";
import { StatusSchema } from "./gen/google/rpc/status_pb";
import { grpcWebMethod } from "./grpcweb";

type Facts = Record<string, unknown>;

function connect(api: string, binary: boolean) {
  const transport = createConnectTransport({ baseUrl: api, useBinaryFormat: binary });
  return { mySvc: createClient(MySvc, transport), books: createClient(BookService, transport) };
}

function failure(e: unknown): Facts {
  if (e instanceof ConnectError) return { error: `ConnectError ${Code[e.code]}: ${e.rawMessage}` };
  if (e instanceof RpcError) return { error: `RpcError ${e.code}: ${e.message}` };
  return { error: String(e) };
}

// violations: a google.rpc.BadRequest's field violations, as [field, description].
function violations(details: { fieldViolations: { field: string; description: string }[] }[]) {
  return details.flatMap((d) => d.fieldViolations.map((v) => [v.field, v.description]));
}

async function connectUnary(api: string, binary: boolean): Promise<Facts> {
  try {
    const res = await connect(api, binary).mySvc.echo({ msg: "hello" });
    return { msg: res.msg };
  } catch (e) {
    return failure(e);
  }
}

async function connectStream(api: string, binary: boolean, count: number): Promise<Facts> {
  const seqs: number[] = [];
  const times: string[] = [];
  try {
    for await (const tick of connect(api, binary).mySvc.watch({ count, intervalMs: 20 })) {
      seqs.push(tick.seq);
      if (tick.time) times.push(timestampDate(tick.time).toISOString());
    }
    return { seqs, times };
  } catch (e) {
    return { seqs, ...failure(e) };
  }
}

async function connectError(api: string, binary: boolean): Promise<Facts> {
  try {
    const res = await connect(api, binary).books.getBook({ name: "" });
    return { unexpected: res.name };
  } catch (e) {
    const err = ConnectError.from(e);
    return { code: Code[err.code], message: err.rawMessage, violations: violations(err.findDetails(BadRequestSchema)) };
  }
}

// connectStreamError: a server stream that fails before its first message
// (count 5000 is out of range).
async function connectStreamError(api: string, binary: boolean): Promise<Facts> {
  const seqs: number[] = [];
  try {
    for await (const tick of connect(api, binary).mySvc.watch({ count: 5000 })) seqs.push(tick.seq);
    return { seqs };
  } catch (e) {
    const err = ConnectError.from(e);
    return { seqs, code: Code[err.code], message: err.rawMessage };
  }
}

// format: "binary" (application/grpc-web+proto) or "text"
// (application/grpc-web-text).
async function grpcWebUnary(api: string, format: string): Promise<Facts> {
  const web = new GrpcWebClientBase({ format });
  try {
    const res = await web.unaryCall(
      `${api}/example.v1.MySvc/Echo`,
      create(EchoRequestSchema, { msg: "hello" }),
      {},
      grpcWebMethod(MySvc.method.echo),
    );
    return { msg: res.msg };
  } catch (e) {
    return failure(e);
  }
}

function grpcWebStream(api: string, format: string, count: number): Promise<Facts> {
  const web = new GrpcWebClientBase({ format });
  const seqs: number[] = [];
  return new Promise((resolve) => {
    const stream = web.serverStreaming(
      `${api}/example.v1.MySvc/Watch`,
      create(WatchRequestSchema, { count, intervalMs: 20 }),
      {},
      grpcWebMethod(MySvc.method.watch),
    );
    let status: Facts = {};
    stream.on("data", (tick) => seqs.push(tick.seq));
    stream.on("status", (s) => (status = { code: s.code, details: s.details }));
    stream.on("error", (e) => resolve({ seqs, status, ...failure(e) }));
    stream.on("end", () => resolve({ seqs, status }));
  });
}

async function grpcWebError(api: string, format: string): Promise<Facts> {
  const web = new GrpcWebClientBase({ format });
  try {
    const res = await web.unaryCall(
      `${api}/bookstore.v1.BookService/GetBook`,
      create(GetBookRequestSchema, { name: "" }),
      {},
      grpcWebMethod(BookService.method.getBook),
    );
    return { unexpected: res.name };
  } catch (e) {
    if (!(e instanceof RpcError)) return failure(e);
    // The status with its details, as the server sent it: the
    // grpc-status-details-bin trailer, base64 of a google.rpc.Status.
    const bin = e.metadata["grpc-status-details-bin"];
    if (bin === undefined) return { code: e.code, message: e.message, metadata: Object.keys(e.metadata) };
    const status = fromBinary(StatusSchema, Uint8Array.from(atob(bin), (c) => c.charCodeAt(0)));
    const details = status.details.map((d) => anyUnpack(d, BadRequestSchema)).filter((d): d is BadRequest => d !== undefined);
    return { code: e.code, message: e.message, statusCode: status.code, violations: violations(details) };
  }
}

declare global {
  interface Window {
    e2e: Record<string, (...args: never[]) => Promise<Facts>>;
  }
}

window.e2e = {
  connectUnary,
  connectStream,
  connectError,
  connectStreamError,
  grpcWebUnary,
  grpcWebStream,
  grpcWebError,
};
document.title = "ready";
