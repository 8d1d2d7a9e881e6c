# served_openapi DIR: builds the binary (or uses CORE_BIN), starts it on a free loopback port with
# a throw-away data folder, and writes the document it serves to
# DIR/openapi.json (3.1) and DIR/openapi-3.0.json. Clients and linters are
# generated from what the service serves, never from a copy kept by hand.
served_openapi() {
  local dir=$1 port pid bin=${CORE_BIN:-}
  if [ -z "$bin" ]; then
    bin="$dir/coreportal"
    go build -o "$bin" ./cmd/coreportal
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$dir/data"
  CORE_ADDR="127.0.0.1:$port" CORE_DATA_DIR="$dir/data" DATABASE_URL="" SEED_ADMIN_PASSWORD="openapi-doc-1" \
    "$bin" serve >"$dir/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { cat "$dir/server.log"; echo "the service stopped" >&2; return 1; }
    sleep 0.5
  done
  curl -fsS "http://127.0.0.1:$port/api/v1/openapi.json" -o "$dir/openapi.json"
  curl -fsS "http://127.0.0.1:$port/api/v1/openapi-3.0.json" -o "$dir/openapi-3.0.json"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
