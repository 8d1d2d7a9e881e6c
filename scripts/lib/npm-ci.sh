# npm_ci DIR: installs the npm packages DIR's package-lock.json pins, as
# `npm ci` does. The installed tree is kept in the user's cache under a key of
# the lock file, Node's version and the platform, so a later clean checkout
# with the same lock links or copies it (seconds) instead of installing (a minute on a
# loaded two-core machine). COREPORTAL_NPM_CACHE=off always installs.
npm_ci() {
  local dir=$1 key cache tmp
  key=$( (cat "$dir/package-lock.json"; node --version; uname -sm) | sha256sum | cut -c1-20)
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/coreportal/node_modules/$(basename "$dir")-$key"
  if [ "${COREPORTAL_NPM_CACHE:-on}" != off ] && [ -f "$cache/.complete" ]; then
    rm -rf "$dir/node_modules"
    # hard links where the cache shares the file system (no tool here writes
    # into an installed package's files; new files land in the copy only)
    cp -al "$cache" "$dir/node_modules" 2>/dev/null || { rm -rf "$dir/node_modules"; cp -a "$cache" "$dir/node_modules"; }
    rm -f "$dir/node_modules/.complete"
    return
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  [ "${COREPORTAL_NPM_CACHE:-on}" != off ] || return 0
  mkdir -p "$(dirname "$cache")"
  # one tree per directory: those of older lock files go
  find "$(dirname "$cache")" -mindepth 1 -maxdepth 1 -name "$(basename "$dir")-*" ! -name "$(basename "$cache")" -exec rm -rf {} +
  tmp="$cache.tmp.$$"
  rm -rf "$tmp"
  if cp -a "$dir/node_modules" "$tmp" && touch "$tmp/.complete"; then
    rm -rf "$cache" && mv -T "$tmp" "$cache" || rm -rf "$tmp"
  else
    rm -rf "$tmp"
  fi
}
