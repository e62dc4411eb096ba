import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guarded } from './transport.js';

async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

// What ended a 1,000-cluster fleet bench while its API server stopped: a keep-alive socket's write failed (EPIPE)
// in the tick between the response's end, when Node's HTTP client takes its 'error' listener off the socket, and the
// agent's 'free' handler, which puts its own on. The error had no listener and ended the process.
test('guarded: a socket error between a response end and the socket going back to the pool is not fatal', async () => {
  const { server, port } = await listen();
  const agent = guarded(new Agent({ keepAlive: true }));
  const uncaught: Error[] = [];
  const onUncaught = (err: Error) => uncaught.push(err);
  process.prependListener('uncaughtException', onUncaught);
  try {
    const listenersAtEnd = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'PATCH', path: '/', agent }, (res) => {
        res.resume();
        res.on('end', () => {
          const socket = req.socket!;
          const n = socket.listenerCount('error');
          socket.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
          resolve(n);
        });
      });
      req.on('error', reject);
      req.end('{}');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Only the guard's listener is left at that point: without it the error above is unhandled.
    assert.equal(listenersAtEnd, 1);
    assert.deepEqual(uncaught, []);
  } finally {
    process.off('uncaughtException', onUncaught);
    agent.destroy();
    server.close();
  }
});

test('guarded: requests in flight still get their socket errors', async () => {
  const server = createServer((req) => req.socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = guarded(new Agent({ keepAlive: true }));
  try {
    const err = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'GET', path: '/', agent }, () => resolve(new Error('answered')));
      req.on('error', resolve);
      req.end();
    });
    assert.match(String(err.code ?? err.message), /ECONNRESET|socket hang up/);
  } finally {
    agent.destroy();
    server.close();
  }
});
