#!/usr/bin/env bash
# Vendors Swagger UI for the docs page (package docsui): downloads the npm
# package swagger-ui-dist at the version pinned below with npm pack, checks
# the tarball against the sha512 integrity pinned below (the registry's
# value for that version, copied here by hand when the version changes),
# and writes only the files the page needs, with the licenses, to
# docsui/swagger-ui, with a SHA256SUMS manifest of them. docsui's
# TestVendoredSwaggerUI fails when a file there differs from the manifest,
# or the manifest from the pins below.
#
#   bash scripts/swaggerui.sh           vendor (after changing VERSION and INTEGRITY)
#   bash scripts/swaggerui.sh --check   download again and compare: the
#                                       committed files are the tarball's
#
# Needs npm (and its node) and the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=5.35.0
INTEGRITY=sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ==
# The page loads the bundle, the stylesheet and the icon; the bundle's
# LICENSE.txt lists the licenses of what it bundles. No standalone preset:
# the page uses the base layout.
FILES=(swagger-ui-bundle.js swagger-ui.css favicon-32x32.png LICENSE NOTICE swagger-ui-bundle.js.LICENSE.txt)
DEST=docsui/swagger-ui

check=false
case "${1:-}" in
"") ;;
--check) check=true ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "swagger-ui-dist@$VERSION" >pack.out 2>pack.err) ||
  { cat "$work/pack.err" >&2; echo "npm pack swagger-ui-dist@$VERSION failed" >&2; exit 1; }
tgz="$work/swagger-ui-dist-$VERSION.tgz"
got=$(node -e 'const c = require("crypto"), fs = require("fs");
  console.log("sha512-" + c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' "$tgz")
if [ "$got" != "$INTEGRITY" ]; then
  echo "swagger-ui-dist-$VERSION.tgz: integrity $got, want the pinned $INTEGRITY" >&2
  exit 1
fi

mkdir "$work/x"
tar -xzf "$tgz" -C "$work/x" "${FILES[@]/#/package/}"
{
  echo "# swagger-ui-dist $VERSION $INTEGRITY"
  (cd "$work/x/package" && sha256sum "${FILES[@]}")
} >"$work/x/package/SHA256SUMS"

if $check; then
  rc=0
  for f in "${FILES[@]}" SHA256SUMS; do
    cmp -s "$work/x/package/$f" "$DEST/$f" || { echo "$DEST/$f differs from swagger-ui-dist $VERSION's" >&2; rc=1; }
  done
  extra=$(cd "$DEST" && ls | grep -vxF -f <(printf '%s\n' "${FILES[@]}" SHA256SUMS) || true)
  [ -z "$extra" ] || { echo "$DEST has files not from swagger-ui-dist: $extra" >&2; rc=1; }
  [ "$rc" -ne 0 ] || echo "$DEST is swagger-ui-dist $VERSION ($INTEGRITY)"
  exit "$rc"
fi

rm -rf "$DEST"
mkdir -p "$DEST"
for f in "${FILES[@]}" SHA256SUMS; do
  cp "$work/x/package/$f" "$DEST/$f"
  chmod 644 "$DEST/$f"
done
echo "vendored swagger-ui-dist $VERSION into $DEST:"
(cd "$DEST" && ls -l)
