#!/usr/bin/env bash
# Installs what the VS Code real-host test (host_test.go) needs, into
# editors/vscode/host/node_modules: code-server 4.100.3 (VS Code 1.100.3;
# the newest release that runs on node 20) and playwright-core, pinned by
# package-lock.json. .ci/run calls it; run it by hand to run the test
# locally. Needs, from Debian: chromium (the browser playwright drives),
# ripgrep, libkrb5-dev, and gcc/g++/make/python3 for the native modules.
#
# code-server's install scripts cannot run as they are here: as root npm
# refuses them, @vscode/ripgrep downloads rg from GitHub, and node-pty's
# build wants node's headers from the network. So: npm ci without scripts,
# then Debian's rg put where the ripgrep downloader looks first, then
# code-server's postinstall with node's local headers (/usr/include/node).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if [ -x node_modules/.bin/code-server ] && [ -f node_modules/.capsulang-installed ] &&
   cmp -s package-lock.json node_modules/.capsulang-installed; then
  echo "code-server already installed (editors/vscode/host/node_modules)"
  exit 0
fi
echo "npm ci --ignore-scripts (code-server 4.100.3, playwright-core)"
npm ci --ignore-scripts --no-audit --no-fund

rg=$(command -v rg) || { echo "install.sh: ripgrep (rg) is missing: apt-get install ripgrep" >&2; exit 1; }
cache="$(node -p "require('os').tmpdir()")/vscode-ripgrep-cache-1.15.11"
mkdir -p "$cache"
tmp=$(mktemp -d)
cp "$rg" "$tmp/rg"
tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$tmp" rg
rm -rf "$tmp"

echo "code-server postinstall (native modules; about 2 minutes on 2 cores)"
# The script reads node's version from npm's user agent, which npm sets
# only when it runs the script itself.
ua="npm/$(npm --version) node/$(node --version) linux x64"
(cd node_modules/code-server &&
  npm_config_user_agent="$ua" npm_config_yes=true npm_config_unsafe_perm=true npm_config_nodedir=/usr sh ./postinstall.sh)
npm_config_nodedir=/usr npm rebuild argon2
cp package-lock.json node_modules/.capsulang-installed
echo "code-server installed: $(node_modules/.bin/code-server --version | head -1)"
