'use strict';
// Which prebuilt package serves this machine. The names are napi-rs's (`napi create-npm-dirs`,
// package.json's `napi.targets`): `flatjoin-<platform>` holds `flatjoin.<platform>.node` (the
// addon) and `flatjoin` (`flatjoin.exe` on Windows, the command-line tool). Both index.js and
// bin/flatjoin.js ask this file, so the library and the command cannot disagree on a platform.

const { readFileSync } = require('node:fs');

/** glibc or musl, the way napi-rs's loader tells them apart. */
function isMusl() {
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
  } catch {
    // No ldd to read: the process report names glibc when it is glibc.
  }
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
  const header = report && (typeof report === 'string' ? JSON.parse(report) : report).header;
  return !(header && header.glibcVersionRuntime);
}

/** The platform name of this machine (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, …). */
function platform() {
  const { platform: os, arch } = process;
  if (os === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
  if (os === 'win32') return `win32-${arch}-msvc`;
  return `${os}-${arch}`;
}

/** napi-rs's platform name of a Rust target triple (package.json `napi.targets`). */
function platformOf(triple) {
  const [arch, , os, env] = triple.split('-');
  const cpu = { x86_64: 'x64', aarch64: 'arm64' }[arch] || arch;
  if (os === 'linux') return `linux-${cpu}-${env}`;
  if (os === 'windows') return `win32-${cpu}-${env}`;
  return `${{ darwin: 'darwin' }[os] || os}-${cpu}`;
}

/**
 * The platforms a prebuilt package is published for: package.json's `napi.targets` (the release
 * adds them as `optionalDependencies`, `napi pre-publish`).
 */
function supported() {
  return require('./package.json').napi.targets.map(platformOf);
}

/** An Error with a stable `code`, naming the platform and what to do. */
function missing(what, tried, cause) {
  const name = platform();
  const known = supported();
  const advice = known.includes(name)
    ? `the optional dependency flatjoin-${name} was not installed: reinstall without ` +
      '--no-optional / --omit=optional (and, with a lock file made on another platform, delete ' +
      'node_modules and the lock file first, npm/cli#4828)'
    : `flatjoin publishes no prebuilt package for ${name} (it has ${known.join(', ')}); build ` +
      'from a checkout with `npm run build` in bindings/node (needs cargo), or open an issue';
  const e = new Error(
    `flatjoin: no ${what} for this platform (${name}): ${advice}. Tried: ${tried.join(', ')}` +
      (cause ? ` (${cause.message})` : ''),
  );
  e.code = known.includes(name) ? 'FLATJOIN_NATIVE_MISSING' : 'FLATJOIN_UNSUPPORTED_PLATFORM';
  e.platform = name;
  return e;
}

module.exports = { platform, platformOf, supported, missing };
