"""An in-memory shelf.v1.Shelves server on grpcio, for scripts/e2e-python.sh.

    python server.py ADDRESS [--port-file FILE] [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]

ADDRESS is host:port (port 0 picks a free one) or unix:/abs/path.sock (also
unix:///abs/path.sock). Once serving, the bound port (0 for a Unix socket)
is written to FILE, through a temporary file, so a reader never sees half
of it. With --tls-cert and --tls-key it serves TLS
(grpc.ssl_server_credentials), and with --tls-client-ca it requires client
certificates signed by that CA. The code generated from e2e/python/proto (shelf/v1/shelf_pb2.py and
shelf_pb2_grpc.py) must be on PYTHONPATH.

What the test looks for:
  * server reflection (grpc.reflection.v1alpha, all grpcio-reflection serves);
  * GetShelf sends initial metadata x-shelf-source: python, x-shelf-caller
    (the caller's x-user), x-shelf-etag-bin (binary), x-shelf-trace-hex
    (the hex of the caller's x-trace-bin) and x-shelf-received (the
    metadata it got whose keys a gateway owns or a proxy uses:
    authorization, grpcgateway-*, x-forwarded-*, proxy-*, as
    "key=value;…" sorted), x-shelf-traceparent (the W3C traceparent it
    got, "" for none), and trailing metadata
    x-shelf-trailer: done, or x-shelf-trailer: missing with its NOT_FOUND;
  * a missing shelf is NOT_FOUND with a google.rpc.ResourceInfo detail, a
    bad request INVALID_ARGUMENT with a google.rpc.BadRequest detail;
  * UpdateShelf sends initial metadata x-shelf-update-mask: the paths of
    the mask it got, comma-separated, or "(none)"; an empty mask replaces
    every updatable field (theme, genre).
"""

import argparse
import datetime
import os
import re
import signal
import sys
import threading
from concurrent import futures

import grpc
from google.protobuf import any_pb2, empty_pb2, timestamp_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from shelf.v1 import shelf_pb2, shelf_pb2_grpc

SERVICE = shelf_pb2.DESCRIPTOR.services_by_name["Shelves"].full_name
SHELF_ID = re.compile(r"^[a-z][a-z0-9-]{0,62}$")
UPDATABLE = ("theme", "genre")
# The fake clock: deterministic create_time values the test can compare.
EPOCH = datetime.datetime(2025, 1, 2, 3, 4, 5, 250000, tzinfo=datetime.timezone.utc)
ETAG = b"\x00\x01\xfe\xff"


def _status(code, message, *details, trailing=()):
    """A grpc.Status carrying details in grpc-status-details-bin, plus more
    trailing metadata."""
    packed = []
    for d in details:
        a = any_pb2.Any()
        a.Pack(d)
        packed.append(a)
    st = rpc_status.to_status(status_pb2.Status(code=code, message=message, details=packed))
    return _WithTrailers(st, tuple(trailing))


class _WithTrailers(grpc.Status):
    def __init__(self, st, trailing):
        self.code = st.code
        self.details = st.details
        self.trailing_metadata = tuple(st.trailing_metadata) + trailing


def _not_found(name, trailing=()):
    info = error_details_pb2.ResourceInfo(
        resource_type="shelf.v1.Shelf",
        resource_name=name,
        description="no such shelf",
    )
    return _status(code_pb2.NOT_FOUND, f'shelf "{name}" not found', info, trailing=trailing)


def _bad_request(message, *violations):
    br = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
            for f, d in violations
        ]
    )
    return _status(code_pb2.INVALID_ARGUMENT, message, br)


def _metadata(context, key):
    for k, v in context.invocation_metadata():
        if k == key:
            return v
    return None


class Shelves(shelf_pb2_grpc.ShelvesServicer):
    def __init__(self):
        self._lock = threading.Lock()
        self._shelves = {}  # name -> Shelf, in creation order
        self._ticks = 0

    def GetShelf(self, request, context):
        caller = _metadata(context, "x-user") or ""
        trace = _metadata(context, "x-trace-bin") or b""
        owned = sorted(
            "%s=%s" % (k, v)
            for k, v in context.invocation_metadata()
            if isinstance(v, str)
            and (k == "authorization" or k.startswith(("grpcgateway-", "x-forwarded-", "proxy-")))
        )
        context.send_initial_metadata(
            (
                ("x-shelf-source", "python"),
                ("x-shelf-caller", caller),
                ("x-shelf-etag-bin", ETAG),
                ("x-shelf-trace-hex", trace.hex()),
                ("x-shelf-received", ";".join(owned)),
                ("x-shelf-traceparent", _metadata(context, "traceparent") or ""),
            )
        )
        with self._lock:
            shelf = self._shelves.get(request.name)
        if shelf is None:
            context.abort_with_status(
                _not_found(request.name, trailing=(("x-shelf-trailer", "missing"),))
            )
        context.set_trailing_metadata((("x-shelf-trailer", "done"),))
        return shelf

    def ListShelves(self, request, context):
        if request.page_size < 0:
            context.abort_with_status(
                _bad_request("invalid page_size", ("page_size", "must not be negative"))
            )
        size = request.page_size or 50
        start = 0
        if request.page_token:
            if not request.page_token.isdigit():
                context.abort_with_status(
                    _bad_request("invalid page_token", ("page_token", "not a token this server gave"))
                )
            start = int(request.page_token)
        with self._lock:
            shelves = list(self._shelves.values())
        if request.HasField("created_after"):
            after = request.created_after.ToNanoseconds()
            shelves = [s for s in shelves if s.create_time.ToNanoseconds() > after]
        if request.genre:
            shelves = [s for s in shelves if s.genre == request.genre]
        page = shelves[start : start + size]
        token = str(start + size) if start + size < len(shelves) else ""
        return shelf_pb2.ListShelvesResponse(shelves=page, next_page_token=token)

    def CreateShelf(self, request, context):
        violations = []
        if not request.shelf_id:
            violations.append(("shelf_id", "required"))
        elif not SHELF_ID.match(request.shelf_id):
            violations.append(("shelf_id", "must match " + SHELF_ID.pattern))
        if not request.shelf.theme:
            violations.append(("shelf.theme", "required"))
        if violations:
            context.abort_with_status(_bad_request("invalid shelf", *violations))
        name = "shelves/" + request.shelf_id
        shelf = shelf_pb2.Shelf(
            name=name,
            theme=request.shelf.theme,
            genre=request.shelf.genre,
            created_by=_metadata(context, "x-user") or "",
        )
        with self._lock:
            if name in self._shelves:
                context.abort_with_status(
                    _status(code_pb2.ALREADY_EXISTS, f'shelf "{name}" already exists')
                )
            ts = timestamp_pb2.Timestamp()
            ts.FromDatetime(EPOCH + datetime.timedelta(seconds=self._ticks))
            self._ticks += 1
            shelf.create_time.CopyFrom(ts)
            self._shelves[name] = shelf
        return shelf

    def UpdateShelf(self, request, context):
        paths = list(request.update_mask.paths)
        context.send_initial_metadata((("x-shelf-update-mask", ",".join(paths) or "(none)"),))
        bad = [p for p in paths if p not in UPDATABLE]
        if bad:
            context.abort_with_status(
                _bad_request(
                    "invalid update_mask",
                    *[("update_mask", f'"{p}" cannot be updated') for p in bad],
                )
            )
        name = request.shelf.name
        with self._lock:
            old = self._shelves.get(name)
            if old is None:
                context.abort_with_status(_not_found(name))
            new = shelf_pb2.Shelf()
            new.CopyFrom(old)
            for p in paths or UPDATABLE:
                setattr(new, p, getattr(request.shelf, p))
            self._shelves[name] = new
        return new

    def DeleteShelf(self, request, context):
        with self._lock:
            if self._shelves.pop(request.name, None) is None:
                context.abort_with_status(_not_found(request.name))
        return empty_pb2.Empty()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("address", help="host:port or unix:/abs/path.sock")
    parser.add_argument("--port-file", help="write the bound port here once serving")
    parser.add_argument("--tls-cert", help="serve TLS with this certificate chain (PEM)")
    parser.add_argument("--tls-key", help="the private key (PEM) of --tls-cert")
    parser.add_argument("--tls-client-ca", help="require client certificates signed by this CA (PEM)")
    args = parser.parse_args()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    shelf_pb2_grpc.add_ShelvesServicer_to_server(Shelves(), server)
    reflection.enable_server_reflection((SERVICE, reflection.SERVICE_NAME), server)
    if args.tls_cert:
        with open(args.tls_key, "rb") as k, open(args.tls_cert, "rb") as c:
            pair = (k.read(), c.read())
        ca = None
        if args.tls_client_ca:
            with open(args.tls_client_ca, "rb") as f:
                ca = f.read()
        creds = grpc.ssl_server_credentials([pair], root_certificates=ca, require_client_auth=ca is not None)
        port = server.add_secure_port(args.address, creds)
    else:
        port = server.add_insecure_port(args.address)
    if port == 0 and not args.address.startswith("unix:"):
        sys.exit(f"server.py: cannot listen on {args.address}")
    server.start()
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{0 if args.address.startswith('unix:') else port}\n")
        os.replace(tmp, args.port_file)
    print(f"server.py: serving {SERVICE} on {args.address} (port {port})", flush=True)

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    done.wait()
    server.stop(grace=1).wait()


if __name__ == "__main__":
    main()
