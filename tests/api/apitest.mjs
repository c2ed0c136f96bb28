// Shared by the API tests: the server under test, the official OpenAI client, raw HTTP.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import assert from 'node:assert/strict';
import OpenAI from 'openai';

export const KEY = 'sk-test-' + Math.random().toString(16).slice(2);

// The server's base URL (http://127.0.0.1:PORT) from a line "listening on URL/v1 ..." of `out`.
export function baseUrlFrom(text) {
    const m = /listening on (http:\/\/[^\s/]+)\/v1/.exec(text);
    return m ? m[1] : null;
}

export function client(base, key = KEY) {
    return new OpenAI({ baseURL: base + '/v1', apiKey: key, maxRetries: 0, timeout: 60000 });
}

export async function get(base, path, key = KEY) {
    const headers = key ? { Authorization: 'Bearer ' + key } : {};
    const res = await fetch(base + path, { headers });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

export async function post(base, path, body, key = KEY) {
    const headers = { 'Content-Type': 'application/json' };
    if (key) headers.Authorization = 'Bearer ' + key;
    const res = await fetch(base + path, { method: 'POST', headers, body });
    return { status: res.status, text: await res.text() };
}

// A request with headers fetch() will not send as given (Host, Origin): resolves
// { status, headers, text }.
export function raw(base, method, path, headers = {}) {
    const url = new URL(base);
    return new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
            let text = '';
            res.on('data', (d) => { text += d; });
            res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
        });
        req.on('error', reject);
        req.end();
    });
}

// The status line of the answer to a request whose body is `length` bytes (sent in 1 MiB pieces
// until the server answers; cpp-httplib counts what it reads, so the bytes must really come).
export function rawStatus(base, length) {
    const url = new URL(base);
    const piece = Buffer.alloc(1 << 20, 0x20);
    return new Promise((resolve, reject) => {
        let data = '';
        let sent = 0;
        let done = false;
        const sock = net.connect(Number(url.port), url.hostname);
        const finish = () => { if (!done) { done = true; sock.destroy(); resolve(data.split('\r\n')[0]); } };
        const pump = () => {
            while (!done && sent < length) {
                const n = Math.min(piece.length, length - sent);
                sent += n;
                if (!sock.write(n === piece.length ? piece : piece.subarray(0, n))) { sock.once('drain', pump); return; }
            }
        };
        sock.on('connect', () => {
            sock.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\n` +
                       `Authorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
                       `Content-Length: ${length}\r\n\r\n`);
            pump();
        });
        sock.on('data', (d) => { data += d; if (data.includes('\r\n')) finish(); });
        sock.on('error', (e) => (data ? finish() : reject(e)));
        sock.on('close', finish);
    });
}

// Posts `bodies` to /v1/chat/completions one after another on one connection, waiting `pauseMs`
// after each answer; resolves the status lines, with 'closed' where the server had closed it.
export function keepAliveStatuses(base, bodies, pauseMs) {
    const url = new URL(base);
    return new Promise((resolve, reject) => {
        const statuses = [];
        let data = Buffer.alloc(0); // bytes: Content-Length counts bytes, and answers are UTF-8
        let closed = false;
        const sock = net.connect(Number(url.port), url.hostname);
        const timer = setTimeout(() => {
            sock.destroy();
            reject(new Error(`no whole answer in 30 s after ${statuses.length}; got:\n${data.toString().slice(-500)}`));
        }, 30000);
        const send = () => {
            if (statuses.length === bodies.length || closed) {
                while (statuses.length < bodies.length) statuses.push('closed');
                clearTimeout(timer);
                sock.destroy();
                resolve(statuses);
                return;
            }
            const body = bodies[statuses.length];
            data = Buffer.alloc(0);
            sock.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n` +
                       `Authorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
                       `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        };
        sock.on('connect', send);
        sock.on('data', (d) => {
            data = Buffer.concat([data, d]);
            const head = data.indexOf('\r\n\r\n');
            if (head < 0) return;
            const headers = data.subarray(0, head).toString();
            const length = /^content-length: *(\d+)/im.exec(headers);
            const complete = /^transfer-encoding: *chunked/im.test(headers)
                ? data.subarray(-7).toString() === '\r\n0\r\n\r\n'
                : length && data.length >= head + 4 + Number(length[1]);
            if (!complete) return;
            statuses.push(headers.split('\r\n')[0]);
            setTimeout(send, pauseMs);
        });
        sock.on('end', () => { closed = true; });
        sock.on('error', (e) => (statuses.length ? (closed = true) : reject(e)));
    });
}

// Streams one chat completion with the official client; returns the text and the arrival
// time (ms) of every content chunk.
export async function stream(api, prompt, maxTokens, extra = {}) {
    const times = [];
    let text = '';
    let finish = null;
    const s = await api.chat.completions.create({
        model: 'any', messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, stream: true,
        ignore_eos: true, temperature: 0.8, ...extra,
    });
    for await (const chunk of s) {
        const c = chunk.choices?.[0];
        if (c?.delta?.content) { text += c.delta.content; times.push(performance.now()); }
        if (c?.finish_reason) finish = c.finish_reason;
    }
    return { text, times, finish };
}

// A w x h 24-bit BMP as a data URL (stb_image, which llama.cpp decodes with, reads BMP).
export function bmpDataUrl(w, h, seed = 0) {
    const row = Math.ceil((w * 3) / 4) * 4;
    const b = Buffer.alloc(54 + row * h);
    b.write('BM', 0);
    b.writeUInt32LE(b.length, 2);
    b.writeUInt32LE(54, 10);
    b.writeUInt32LE(40, 14);
    b.writeInt32LE(w, 18);
    b.writeInt32LE(h, 22);
    b.writeUInt16LE(1, 26);
    b.writeUInt16LE(24, 28);
    b.writeUInt32LE(row * h, 34);
    for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
            const at = 54 + y * row + x * 3;
            b[at] = (x * 4 + seed * 40) & 255;
            b[at + 1] = (y * 4 + seed * 90) & 255;
            b[at + 2] = ((x + y) * 2 + seed * 17) & 255;
        }
    return 'data:image/bmp;base64,' + b.toString('base64');
}

// The checks every server (shoehorn-cli serve and the app's) must pass, in one place.
export async function checkServer(t, base, { slots = 2, keys = [KEY] } = {}) {
    const api = client(base);

    await t.test('the official client lists /v1/models', async () => {
        const models = await api.models.list();
        assert.ok(models.data.length >= 1, JSON.stringify(models.data));
        assert.ok(models.data[0].id.length > 0);
    });

    await t.test('the official client streams a chat completion', async () => {
        const r = await stream(api, 'hello', 24);
        assert.ok(r.times.length > 0, 'no content chunks');
        assert.equal(r.finish, 'length');
    });

    await t.test('two streams make progress at the same time', async () => {
        const [a, b] = await Promise.all([stream(api, 'one', 400), stream(api, 'two', 400)]);
        assert.ok(a.times.length > 50 && b.times.length > 50, `${a.times.length} / ${b.times.length} chunks`);
        // Interleaved: each stream receives chunks before the other has finished.
        const bBeforeAEnds = b.times.filter((x) => x < a.times.at(-1)).length;
        const aBeforeBEnds = a.times.filter((x) => x < b.times.at(-1)).length;
        assert.ok(bBeforeAEnds > 10 && aBeforeBEnds > 10, `overlap ${aBeforeBEnds}/${bBeforeAEnds}`);
    });

    await t.test('a request beyond the slots waits for a free slot', async () => {
        const busy = [];
        for (let i = 0; i < slots; ++i) busy.push(stream(api, 'busy ' + i, 500));
        // Every slot busy before the third comes (a fixed pause let it overtake on a loaded machine).
        let all = false;
        for (let i = 0; i < 400 && !all; ++i) {
            await new Promise((r) => setTimeout(r, 5));
            all = JSON.parse((await get(base, '/slots')).text).every((slot) => slot.is_processing);
        }
        assert.ok(all, 'the slots never were all busy');
        const third = await stream(api, 'third', 20);
        const done = await Promise.all(busy);
        const firstEnd = Math.min(...done.map((d) => d.times.at(-1)));
        assert.ok(third.times.length > 0);
        assert.ok(third.times[0] >= firstEnd - 5, `third started ${firstEnd - third.times[0]} ms before a slot was free`);
    });

    await t.test('a finished stream keeps its keep-alive connection for the next request', async () => {
        // llama-server closed it after every stream without saying so: a client that reused it
        // at once (the official one, on a loaded machine) got "other side closed".
        const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, stream: true });
        const plain = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
        assert.deepEqual(await keepAliveStatuses(base, [body, plain, body], 300),
                         ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    });

    await t.test('keys: none or wrong is 401, /health needs none', async () => {
        assert.equal((await get(base, '/v1/models', null)).status, 401);
        assert.equal((await get(base, '/v1/models', 'wrong')).status, 401);
        const health = await get(base, '/health', null);
        assert.equal(health.status, 200);
        assert.match(health.text, /ok/);
    });

    await t.test('every key given works', async () => {
        for (const k of keys) assert.equal((await get(base, '/v1/models', k)).status, 200, k);
    });

    await t.test('another web site gets no permission: preflight and request are refused', async () => {
        const evil = 'https://evil.example';
        const pre = await raw(base, 'OPTIONS', '/v1/chat/completions', {
            Origin: evil, 'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization, content-type' });
        assert.equal(pre.status, 403, pre.text);
        assert.equal(pre.headers['access-control-allow-origin'], undefined);
        const r = await raw(base, 'GET', '/v1/models', { Origin: evil, Authorization: 'Bearer ' + KEY });
        assert.equal(r.status, 403);
        assert.equal(r.headers['access-control-allow-origin'], undefined);
        assert.match(JSON.parse(r.text).error.message, /evil\.example may not use this server.*--cors-origins/);
    });

    await t.test('a page served from this machine gets permission', async () => {
        const local = 'http://localhost:5173';
        const pre = await raw(base, 'OPTIONS', '/v1/chat/completions', {
            Origin: local, 'Access-Control-Request-Method': 'POST' });
        assert.equal(pre.status, 200);
        assert.equal(pre.headers['access-control-allow-origin'], local);
        const r = await raw(base, 'GET', '/v1/models', { Origin: local, Authorization: 'Bearer ' + KEY });
        assert.equal(r.status, 200);
        assert.equal(r.headers['access-control-allow-origin'], local);
    });

    await t.test('a rebinding Host is refused with a clear message', async () => {
        const port = new URL(base).port;
        const r = await raw(base, 'GET', '/v1/models', { Host: 'evil.example:' + port, Authorization: 'Bearer ' + KEY });
        assert.equal(r.status, 403);
        assert.match(JSON.parse(r.text).error.message, /named "evil\.example:\d+".*DNS rebinding/);
        const ok = await raw(base, 'GET', '/v1/models', { Host: 'localhost:' + port, Authorization: 'Bearer ' + KEY });
        assert.equal(ok.status, 200);
    });

    await t.test('malformed JSON is 400 with an error body', async () => {
        const r = await post(base, '/v1/chat/completions', '{"messages": [');
        assert.equal(r.status, 400);
        assert.ok(JSON.parse(r.text).error.message.length > 0, r.text);
    });

    await t.test('an oversized body is refused', async () => {
        assert.match(await rawStatus(base, 101 * 1024 * 1024), /^HTTP\/1\.1 413/);
    });

    await t.test('a prompt longer than the context gets llama-server\'s error', async () => {
        const long = 'the model '.repeat(3000);
        const r = await post(base, '/v1/chat/completions',
                             JSON.stringify({ messages: [{ role: 'user', content: long }], max_tokens: 4 }));
        assert.equal(r.status, 400, r.text.slice(0, 300));
        assert.equal(JSON.parse(r.text).error.type, 'exceed_context_size_error');
    });

    await t.test('a client that disconnects mid-stream frees its slot', async () => {
        const abort = new AbortController();
        const res = await fetch(base + '/v1/chat/completions', {
            method: 'POST', signal: abort.signal,
            headers: { Authorization: 'Bearer ' + KEY, 'Content-Type': 'application/json' },
            body: JSON.stringify({ messages: [{ role: 'user', content: 'go' }], max_tokens: 900,
                                   ignore_eos: true, stream: true }),
        });
        const reader = res.body.getReader();
        await reader.read();
        await reader.read();
        abort.abort();
        let idle = false;
        for (let i = 0; i < 100 && !idle; ++i) {
            await new Promise((r) => setTimeout(r, 50));
            const s = JSON.parse((await get(base, '/slots')).text);
            idle = s.every((slot) => !slot.is_processing);
        }
        assert.ok(idle, 'a slot is still busy after the client left');
        assert.ok((await stream(api, 'next', 8)).times.length > 0);
    });

    await t.test('/metrics answers in Prometheus text format', async () => {
        const r = await get(base, '/metrics');
        assert.equal(r.status, 200);
        assert.match(r.type, /text\/plain/);
        assert.match(r.text, /^# HELP llamacpp:prompt_tokens_total /m);
        assert.match(r.text, /^# TYPE llamacpp:tokens_predicted_total counter$/m);
        const predicted = Number(/^llamacpp:tokens_predicted_total (\d+)/m.exec(r.text)[1]);
        assert.ok(predicted > 500, `tokens_predicted_total ${predicted}`);
    });
}

// Starts `shoehorn-cli serve` and waits for its URL. Resolves { proc, base, out() }.
export function serveCli(cli, args, { waitUrl = true, env = {} } = {}) {
    const proc = spawn(cli, ['serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no URL within 60 s:\n' + out)), 60000);
        const check = () => {
            const base = baseUrlFrom(out);
            if (waitUrl && base) { clearTimeout(timer); resolve({ proc, base, out: () => out, exited }); }
        };
        proc.stdout.on('data', check);
        exited.then((e) => { clearTimeout(timer); resolve({ proc, base: null, out: () => out, exited, ...e }); });
    });
}
