// shoehorn-cli serve, driven by the official OpenAI client. Env: SHOEHORN_CLI, API_FIXTURE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KEY, baseUrlFrom, bmpDataUrl, checkServer, client, post, stream } from './apitest.mjs';

const CLI = process.env.SHOEHORN_CLI;
const MODEL = process.env.API_FIXTURE;

// Starts `shoehorn-cli serve` and waits for its URL. Resolves { proc, base, out() }.
function serve(args, { waitUrl = true } = {}) {
    const proc = spawn(CLI, ['serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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

test('shoehorn-cli serve', async (t) => {
    const s = await serve([MODEL, '--port', '0', '--api-key', KEY + ',' + KEY + '-second', '--metrics', '--parallel', '2', '-c', '2048']);
    assert.ok(s.base, s.out());
    assert.match(s.out(), /settings: -ngl \d+ --n-cpu-moe \d+ -c 2048 \(one KV cache for 2 API slots and the chat.s\)/);
    assert.ok(!s.out().includes(KEY), 'the key was printed');
    try {
        await checkServer(t, s.base, { slots: 2, keys: [KEY, KEY + '-second'] });

        await t.test('SIGTERM during a stream: the stream ends, exit 0', async () => {
            const pending = stream(client(s.base), 'long', 1000).catch((e) => ({ error: e }));
            await new Promise((r) => setTimeout(r, 100));
            s.proc.kill('SIGTERM');
            const e = await s.exited;
            await pending;
            assert.equal(e.code, 0, s.out().slice(-2000));
            assert.match(s.out(), /SIGTERM: stopping/);
        });
    } finally {
        s.proc.kill('SIGKILL');
    }
});

test('SIGTERM with long requests open: the stream ends, a waiting request gets 503, exit 0', async () => {
    // --context-shift: generation goes on past the slot's context (the tiny model's is 2048), so
    // 8000 tokens take seconds and both requests are still open when the signal comes.
    const s = await serve([MODEL, '--port', '0', '--api-key', KEY, '--parallel', '2', '-c', '2048', '--context-shift']);
    try {
        const pending = stream(client(s.base), 'long', 8000).catch((e) => ({ error: e }));
        const waiting = post(s.base, '/v1/chat/completions', JSON.stringify({
            messages: [{ role: 'user', content: 'long' }], max_tokens: 8000, ignore_eos: true }));
        await new Promise((r) => setTimeout(r, 300));
        const t0 = performance.now();
        s.proc.kill('SIGTERM');
        const e = await s.exited;
        const stopMs = performance.now() - t0;
        const streamed = await pending;
        const w = await waiting;
        assert.equal(e.code, 0, s.out().slice(-2000));
        assert.ok(stopMs < 5000, `stopping took ${stopMs} ms`);
        assert.ok(streamed.error || streamed.times.length < 8000, 'the stream ran to its end instead of stopping');
        assert.equal(w.status, 503, w.text.slice(0, 300));
        assert.match(JSON.parse(w.text).error.message, /shutting down/);
    } finally {
        s.proc.kill('SIGKILL');
    }
});

test('a port in use gets a clear message and a free one', async () => {
    const first = await serve([MODEL, '--port', '0']);
    const port = new URL(first.base).port;
    try {
        const second = await serve([MODEL, '--port', port]);
        assert.equal(second.code, 1);
        assert.match(second.out(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use by another program: --port \\d+ is free`));
    } finally {
        first.proc.kill('SIGINT');
        assert.equal((await first.exited).code, 0);
    }
});

test('a host other machines reach needs a key', async () => {
    const r = await serve([MODEL, '--host', '0.0.0.0', '--port', '0']);
    assert.equal(r.code, 1);
    assert.match(r.out(), /--host 0\.0\.0\.0 is reachable from other machines: set an API key first/);
});

test('--api-key-file and --models-preset --model', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoehorn-serve-'));
    const keyFile = path.join(dir, 'key');
    fs.writeFileSync(keyFile, KEY + '\n', { mode: 0o600 });
    const ini = path.join(dir, 'models.ini');
    fs.writeFileSync(ini, `version = 1\n[*]\nc = 1024\n\n[tiny]\nmodel = ${MODEL}\nparallel = 1\n`);
    const s = await serve(['--models-preset', ini, '--model', 'tiny', '--api-key-file', keyFile, '--port', '0']);
    try {
        assert.ok(s.base, s.out());
        assert.match(s.out(), /-c 1024 \(one KV cache for 1 API slots and the chat.s\)/);
        const models = await client(s.base).models.list();
        assert.equal(models.data[0].id, 'tiny');
        assert.ok((await stream(client(s.base), 'hi', 4)).times.length > 0);
    } finally {
        s.proc.kill('SIGINT');
        await s.exited;
    }
    const missing = await serve(['--models-preset', ini, '--model', 'nope', '--port', '0']);
    assert.equal(missing.code, 2);
    assert.match(missing.out(), /has no section \[nope\] \(sections: tiny\)/);
});

test('--mmproj: image_url content parts through the official client', async () => {
    const s = await serve([process.env.VISION_FIXTURE, '--mmproj', process.env.VISION_MMPROJ, '--port', '0',
        '--api-key', KEY, '-c', '2048']);
    try {
        assert.ok(s.base, s.out());
        const ask = (content) => client(s.base).chat.completions.create({
            model: 'any', max_tokens: 4, temperature: 0, messages: [{ role: 'user', content }] });
        const text = await ask('What is in the picture?');
        const seen = await ask([
            { type: 'image_url', image_url: { url: bmpDataUrl(96, 64) } },
            { type: 'text', text: 'What is in the picture?' },
        ]);
        // The image's tokens (3x2 merged patches, or llama.cpp's minimum) entered the prompt.
        assert.ok(seen.usage.prompt_tokens >= text.usage.prompt_tokens + 6,
            `${seen.usage.prompt_tokens} vs ${text.usage.prompt_tokens}`);
        // Not an image: llama-server's own 400, and the server goes on.
        await assert.rejects(ask([{ type: 'image_url', image_url: { url: 'data:image/png;base64,' +
            Buffer.from('not a picture').toString('base64') } }, { type: 'text', text: 'hi' }]),
            (e) => e.status === 400);
        assert.ok((await ask('still there?')).choices[0].message);
    } finally {
        s.proc.kill('SIGTERM');
        await s.exited;
    }
});
