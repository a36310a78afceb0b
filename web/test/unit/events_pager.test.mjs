import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventPager } from '../../src/events_pager.js';

// A list of `total` rows whose row i is {i}; every request is recorded and answered
// when the test says so (or at once with `immediate`).
function fakeServer(total, { immediate = false } = {}) {
  const server = { requests: [], pending: [] };
  server.fetchPage = (offset, limit) => {
    server.requests.push([offset, limit]);
    const answer = { total, offset, events: [] };
    for (let i = offset; i < Math.min(total, offset + limit); i++) answer.events.push({ i });
    if (immediate) return Promise.resolve(answer);
    return new Promise((resolve, reject) => server.pending.push({ offset, resolve: () => resolve(answer), reject }));
  };
  // Answers the pending requests, oldest first, and lets the pager react.
  server.flush = async () => {
    while (server.pending.length) {
      server.pending.shift().resolve();
      await settle();
    }
  };
  return server;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('rows in view are placeholders until their page is in, across a page boundary', async () => {
  const server = fakeServer(1000);
  const changes = [];
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 1000, pageSize: 100, onChange: (c) => changes.push(c) });
  assert.equal(pager.get(195), null);
  pager.want(195, 205); // pages 1 and 2, then the neighbours 3 and 0
  await settle();
  assert.deepEqual(server.requests, [[100, 100], [200, 100]], 'two at a time, the pages in view first');
  await server.flush();
  assert.deepEqual(server.requests.map(([offset]) => offset), [100, 200, 300, 0]);
  assert.deepEqual(pager.get(199), { i: 199 });
  assert.deepEqual(pager.get(200), { i: 200 });
  assert.deepEqual(pager.get(0), { i: 0 });
  assert.equal(pager.get(1000), null);
  assert.equal(changes.length, 4);
  // Already in: nothing more is asked.
  pager.want(150, 250);
  await settle();
  assert.equal(server.requests.length, 4);
  assert.equal(pager.fetches, 4);
});

test('the last page asks only for the rows that exist', async () => {
  const server = fakeServer(250, { immediate: true });
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 250, pageSize: 100 });
  pager.want(240, 249);
  await settle();
  await settle();
  assert.deepEqual(server.requests[0], [200, 50]);
  assert.deepEqual(pager.get(249), { i: 249 });
});

test('scrolling past pages does not fetch them: only what is still wanted starts', async () => {
  const server = fakeServer(1000000);
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 1000000, pageSize: 200, maxInFlight: 2 });
  pager.want(0, 30); // starts pages 0 and 1
  for (let row = 1000; row < 900000; row += 1000) pager.want(row, row + 30); // a fast drag
  pager.want(999970, 999999);
  await settle();
  await server.flush();
  const pages = server.requests.map(([offset]) => offset / 200);
  assert.ok(pages.length <= 5, `asked for ${pages}`);
  assert.deepEqual(pages.slice(0, 2), [0, 1]);
  assert.ok(pages.includes(4999), 'the page in view at the end');
  assert.deepEqual(pager.get(999999), { i: 999999 });
});

test('the cache keeps at most maxPages, dropping the least recently used, never those in view', async () => {
  const server = fakeServer(100000, { immediate: true });
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 100000, pageSize: 100, maxPages: 5 });
  for (const row of [0, 1000, 2000, 3000, 4000, 5000, 6000]) {
    pager.want(row, row + 10);
    for (let i = 0; i < 6; i++) await settle();
  }
  assert.ok(pager.pages.size <= 5, `${pager.pages.size} pages held`);
  assert.ok(pager.has(6000) && pager.has(6005), 'the page in view stays');
  assert.equal(pager.has(0), false, 'the oldest went first');
});

test('load() resolves with the row once its page is in', async () => {
  const server = fakeServer(5000);
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 5000, pageSize: 100 });
  const row = pager.load(4321);
  await settle();
  assert.deepEqual(server.requests, [[4300, 100]]);
  await server.flush();
  assert.deepEqual(await row, { i: 4321 });
  assert.equal(await pager.load(99999), null);
});

test('reset drops the old list: late answers are ignored, waiters get null', async () => {
  const old = fakeServer(1000);
  const pager = new EventPager({ fetchPage: old.fetchPage, total: 1000, pageSize: 100 });
  const waiting = pager.load(10);
  await settle();
  const fresh = fakeServer(30, { immediate: true });
  pager.reset(fresh.fetchPage, 30);
  assert.equal(await waiting, null);
  await old.flush(); // the old filter's answer arrives late
  assert.equal(pager.get(10), null);
  pager.want(0, 29);
  await settle();
  await settle();
  assert.deepEqual(pager.get(10), { i: 10 });
  assert.equal(pager.total, 30);
});

// A live recording's list grows each second: the rows in view keep showing until their
// pages come in again, instead of blinking to placeholders at every update.
test('refresh keeps showing the old rows until the grown list\'s pages replace them', async () => {
  const before = fakeServer(150, { immediate: true });
  const pager = new EventPager({ fetchPage: before.fetchPage, total: 150, pageSize: 100 });
  pager.want(100, 149);
  await settle();
  await settle();
  assert.deepEqual(pager.get(120), { i: 120 });

  // Row 120 is now another line (one came in earlier in time), and the list has 181.
  const after = fakeServer(181);
  const shifted = (offset, limit) => after.fetchPage(offset, limit).then((answer) => ({
    ...answer, events: answer.events.map((e) => ({ i: e.i, grown: true })),
  }));
  pager.refresh(shifted, 181);
  assert.deepEqual(pager.get(120), { i: 120 }, 'shown as it was');
  assert.equal(pager.has(120), false, 'but not in as the list is now');
  assert.equal(pager.get(170), null, 'a new row is a placeholder');
  const loaded = pager.load(120);
  pager.want(100, 180);
  await settle();
  await after.flush();
  assert.deepEqual(pager.get(120), { i: 120, grown: true });
  assert.deepEqual(pager.get(170), { i: 170, grown: true });
  assert.deepEqual(await loaded, { i: 120, grown: true }, 'load() waits for the list as it is now');
});

test('reset after a refresh shows nothing of either earlier list', async () => {
  const server = fakeServer(150, { immediate: true });
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 150, pageSize: 100 });
  pager.want(0, 99);
  await settle();
  await settle();
  pager.refresh(server.fetchPage, 160);
  assert.deepEqual(pager.get(5), { i: 5 });
  pager.reset(server.fetchPage, 40);
  assert.equal(pager.get(5), null);
});

test('a total the answer corrects resizes the list', async () => {
  const server = fakeServer(120, { immediate: true });
  const changes = [];
  const pager = new EventPager({ fetchPage: server.fetchPage, total: 100, pageSize: 50, onChange: (c) => changes.push(c) });
  pager.want(0, 10);
  await settle();
  await settle();
  assert.equal(pager.total, 120);
  assert.ok(changes.some((c) => c.totalChanged));
});

test('a failed page is reported and asked again when wanted again', async () => {
  let fail = true;
  const requests = [];
  const fetchPage = (offset, limit) => {
    requests.push(offset);
    if (fail) return Promise.reject(new Error('api/events: 500'));
    return Promise.resolve({ total: 10, offset, events: Array.from({ length: limit }, (_, k) => ({ i: offset + k })) });
  };
  const changes = [];
  const pager = new EventPager({ fetchPage, total: 10, pageSize: 10, onChange: (c) => changes.push(c) });
  pager.want(0, 5);
  await settle();
  await settle();
  assert.equal(changes[0].error.message, 'api/events: 500');
  assert.equal(pager.get(0), null);
  fail = false;
  pager.want(0, 5);
  await settle();
  await settle();
  assert.deepEqual(pager.get(3), { i: 3 });
  assert.deepEqual(requests, [0, 0]);
});
