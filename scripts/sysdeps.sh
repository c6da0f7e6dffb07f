#!/usr/bin/env bash
# Install the system packages that the real-part tests need, when they are missing:
#   chromium    the browser that Playwright drives (browser builds cannot be downloaded here)
#   postgresql  a real PostgreSQL server for the history store's tests (a throwaway cluster per run)
#   poppler-utils  pdftoppm, which renders `pontoon report --format pdf` in its test
# Only as root with apt-get (a fresh CI machine); otherwise print what to install and carry on: the
# tests that need a missing part are then skipped with that reason.
set -u
need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  need+=(postgresql)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "sysdeps: installing ${need[*]} (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  if apt-get install -y -qq --no-install-recommends "${need[@]}" >/tmp/pontoon-sysdeps.log 2>&1; then
    exit 0
  fi
  echo "sysdeps: apt-get install ${need[*]} failed (see /tmp/pontoon-sysdeps.log); those tests will be skipped"
else
  echo "sysdeps: missing ${need[*]}; install them (Debian: sudo apt-get install ${need[*]}) to run the browser and PostgreSQL tests"
fi
exit 0
