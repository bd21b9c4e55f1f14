"""A client generated from the demo's document, by a generator no one here
wrote, does a create/get/list/update/delete round trip on the demo's
library.v1.LibraryService.

Used by scripts/e2e-openapi.sh, which generates the client at test time
from the document the demo serves, with openapi-python-client (PyPI):

    openapi-python-client generate --path openapi.json --meta none \\
        --output-path DIR/protorest_client
    python e2e/openapi/roundtrip.py DIR http://127.0.0.1:PORT

Every call goes through the generated functions and models (the request
built from them, the response parsed into them): nothing here writes a
URL or JSON by hand. Prints an "ok   NAME" or "FAIL NAME" line per check;
exits 1 when a check failed.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tally  # noqa: E402
from tally import check  # noqa: E402


def main():
    sys.path.insert(0, sys.argv[1])
    from protorest_client import Client
    from protorest_client.api.library_v_1_library_service import (
        library_service_create_book as create_book,
        library_service_create_shelf as create_shelf,
        library_service_delete_book as delete_book,
        library_service_delete_shelf as delete_shelf,
        library_service_get_book as get_book,
        library_service_get_shelf as get_shelf,
        library_service_list_books as list_books,
        library_service_list_shelves as list_shelves,
        library_service_update_book as update_book,
    )
    from protorest_client.models import GoogleRpcStatus, LibraryV1Book, LibraryV1BookGenre, LibraryV1Shelf
    from protorest_client.models.library_v1_book_labels import LibraryV1BookLabels

    client = Client(base_url=sys.argv[2])

    # The shelf's name is the server's: shelves/{shelf}; its ID goes in the
    # paths, as the parameter the resource pattern names: the template
    # /v1/{name=shelves/*} is /v1/shelves/{shelf} (and a book's
    # /v1/shelves/{shelf}/books/{book}). The calls name them.
    r = create_shelf.sync_detailed(client=client, body=LibraryV1Shelf(theme="Generated"))
    shelf = r.parsed
    check("CreateShelf: 200, a Shelf", (int(r.status_code), type(shelf).__name__), (200, "LibraryV1Shelf"))
    check("CreateShelf: its theme, a create time", (shelf.theme, shelf.create_time is not None), ("Generated", True))
    shelf_id = shelf.name.removeprefix("shelves/")

    r = get_shelf.sync_detailed(shelf=shelf_id, client=client)
    check("GetShelf", (int(r.status_code), r.parsed.name, r.parsed.theme), (200, shelf.name, "Generated"))

    names, token, pages = [], None, 0
    while pages < 10:
        kwargs = {"page_size": 1} if token is None else {"page_size": 1, "page_token": token}
        page = list_shelves.sync(client=client, **kwargs)
        names += [s.name for s in page.shelves]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    check("ListShelves, a page of one at a time: the new shelf is listed", shelf.name in names, True)

    labels = LibraryV1BookLabels()
    labels["source"] = "openapi-python-client"
    book = LibraryV1Book(title="A generated book", author="Nobody here", page_count=12,
                         genre=LibraryV1BookGenre.POETRY, labels=labels)
    r = create_book.sync_detailed(shelf=shelf_id, client=client, body=book, book_id="g1")
    created = r.parsed
    check("CreateBook: 201, a Book", (int(r.status_code), type(created).__name__), (201, "LibraryV1Book"))
    check("CreateBook: what was sent",
          (created.name, created.title, created.author, created.page_count, created.genre, created.labels["source"]),
          ("shelves/%s/books/g1" % shelf_id, "A generated book", "Nobody here", 12, LibraryV1BookGenre.POETRY,
           "openapi-python-client"))

    r = get_book.sync_detailed(shelf=shelf_id, book="g1", client=client)
    check("GetBook", (int(r.status_code), r.parsed.title, r.parsed.genre), (200, "A generated book", LibraryV1BookGenre.POETRY))

    r = list_books.sync_detailed(shelf=shelf_id, client=client)
    check("ListBooks", (int(r.status_code), [b.name for b in r.parsed.books]), (200, [created.name]))

    r = update_book.sync_detailed(shelf=shelf_id, book="g1", client=client, body=LibraryV1Book(title="Renamed", read=True),
                                  update_mask="title,read")
    check("UpdateBook (updateMask title,read)", (int(r.status_code), r.parsed.title, r.parsed.read, r.parsed.author),
          (200, "Renamed", True, "Nobody here"))

    r = delete_book.sync_detailed(shelf=shelf_id, book="g1", client=client)
    check("DeleteBook", int(r.status_code), 200)
    r = get_book.sync_detailed(shelf=shelf_id, book="g1", client=client)
    check("GetBook after DeleteBook: 404, a google.rpc.Status NOT_FOUND",
          (int(r.status_code), type(r.parsed).__name__, getattr(r.parsed, "code", None)), (404, "GoogleRpcStatus", 5))

    r = delete_shelf.sync_detailed(shelf=shelf_id, client=client)
    check("DeleteShelf", int(r.status_code), 200)
    r = get_shelf.sync_detailed(shelf=shelf_id, client=client)
    check("GetShelf after DeleteShelf: 404", (int(r.status_code), isinstance(r.parsed, GoogleRpcStatus)), (404, True))

    print("roundtrip.py: %d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
