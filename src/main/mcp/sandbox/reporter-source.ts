/**
 * The program every contained Node server loads first (`--require`, through NODE_OPTIONS so that its Node children
 * load it too). It enforces nothing — bubblewrap does — but it says what was refused: a file operation outside the
 * profile that failed, a connection to a destination the profile does not grant, a variable of the app's environment
 * the server was not given. Each goes as one line that starts with BLOCK_MARKER to the host's report channel (a FIFO
 * bound into the sandbox, so a child whose stderr its parent keeps still reaches the host), else to stderr. It also sends a connection
 * to a granted `host:port` through that destination's relay socket (the sandbox has no other network).
 *
 * A server can write such lines itself, or unload this file: a block report is a hint for the person, never a
 * decision (docs/user/sandbox.md#what-a-block-report-is).
 */
export const BLOCK_MARKER = '\u001eworkbench-sandbox-block ';
export const REPORTER_ENV = 'WORKBENCH_SANDBOX';

export const REPORTER_SOURCE = String.raw`'use strict';
(() => {
  let config;
  try { config = JSON.parse(process.env.${REPORTER_ENV} || 'null'); } catch { config = null; }
  if (!config) return;
  const path = require('node:path');
  const fs = require('node:fs');
  const net = require('node:net');
  const crypto = require('node:crypto');
  const MARK = ${JSON.stringify(BLOCK_MARKER)};
  const seen = new Set();
  let channel;
  const report = (block) => {
    const key = block.kind + ' ' + block.target;
    if (seen.has(key)) return;
    seen.add(key);
    const line = MARK + JSON.stringify(block) + '\n';
    try {
      if (channel === undefined) channel = config.channel ? fs.openSync(config.channel, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK) : null;
      fs.writeSync(channel === null ? 2 : channel, line);
    } catch { try { fs.writeSync(2, line); } catch {} }
  };
  const within = (file, folders) => folders.some((folder) => { const r = path.relative(folder, file); return r === '' || (!r.startsWith('..') && !path.isAbsolute(r)); });
  const REFUSED = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR']);
  const absolute = (file) => { try { if (file instanceof URL) file = file.pathname; if (Buffer.isBuffer(file)) file = file.toString(); return typeof file === 'string' ? path.resolve(file) : undefined; } catch { return undefined; } };
  const check = (kind, file, error) => {
    if (!error || !REFUSED.has(error.code)) return;
    const target = absolute(file);
    if (!target) return;
    if (kind === 'write' ? within(target, config.write) : within(target, config.read) || within(target, config.write)) return;
    report({ kind, target, pid: process.pid });
  };
  const WRITES = new Set(['writeFile', 'appendFile', 'mkdir', 'rm', 'rmdir', 'unlink', 'rename', 'copyFile', 'cp', 'symlink', 'link', 'truncate', 'chmod', 'chown', 'utimes', 'mkdtemp']);
  const READS = ['readFile', 'readdir', 'stat', 'lstat', 'access', 'realpath', 'readlink', 'opendir', 'exists'];
  const writeFlags = (flags) => typeof flags === 'string' ? /[wa+]/.test(flags) : typeof flags === 'number' && (flags & 3) !== 0;
  const kindOf = (name, args) => name === 'open' ? (writeFlags(args[1]) ? 'write' : 'read') : WRITES.has(name) ? 'write' : 'read';
  const targetOf = (name, args) => name === 'rename' || name === 'copyFile' || name === 'cp' || name === 'symlink' || name === 'link' ? args[1] : args[0];
  for (const name of ['open', ...READS, ...WRITES]) {
    const sync = fs[name + 'Sync'];
    if (typeof sync === 'function') {
      fs[name + 'Sync'] = function (...args) {
        try { return sync.apply(this, args); } catch (error) { check(kindOf(name, args), targetOf(name, args), error); throw error; }
      };
    }
    const callback = fs[name];
    if (typeof callback === 'function' && name !== 'exists') {
      fs[name] = function (...args) {
        const done = args[args.length - 1];
        if (typeof done === 'function') args[args.length - 1] = function (error, ...rest) { check(kindOf(name, args), targetOf(name, args), error); return done.call(this, error, ...rest); };
        return callback.apply(this, args);
      };
    }
    const promised = fs.promises[name];
    if (typeof promised === 'function') {
      fs.promises[name] = function (...args) {
        return promised.apply(this, args).catch((error) => { check(kindOf(name, args), targetOf(name, args), error); throw error; });
      };
    }
  }
  const relays = config.relays || {};
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    let options = args[0];
    if (Array.isArray(options)) options = options[0];
    let host; let port;
    if (options && typeof options === 'object') { host = options.host; port = options.port; if (options.path !== undefined) return connect.apply(this, args); }
    else { port = args[0]; host = typeof args[1] === 'string' ? args[1] : undefined; }
    if (port === undefined) return connect.apply(this, args);
    host = String(host || 'localhost').toLowerCase();
    const destination = (host.includes(':') && !host.startsWith('[') ? '[' + host + ']' : host) + ':' + Number(port);
    const relay = relays[destination];
    if (relay) {
      const listener = args.find((arg) => typeof arg === 'function');
      return connect.call(this, { path: relay }, ...(listener ? [listener] : []));
    }
    report({ kind: 'connect', target: destination, pid: process.pid });
    return connect.apply(this, args);
  };
  const withheld = config.withheld;
  if (withheld && Array.isArray(withheld.hashes) && withheld.hashes.length > 0) {
    const hashes = new Set(withheld.hashes);
    const env = process.env;
    process.env = new Proxy(env, {
      get(target, name, receiver) {
        if (typeof name === 'string' && !(name in target) && hashes.has(crypto.createHash('sha256').update(withheld.salt + name).digest('hex'))) report({ kind: 'env', target: name, pid: process.pid });
        return Reflect.get(target, name, receiver);
      },
    });
  }
})();
`;
