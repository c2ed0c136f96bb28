// shoehorn-cli serve, driven by the official OpenAI client. Env: SHOEHORN_CLI, API_FIXTURE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { KEY, bmpDataUrl, checkServer, client, get, post, serveCli, stream } from './apitest.mjs';

const CLI = process.env.SHOEHORN_CLI;
const MODEL = process.env.API_FIXTURE;

const serve = (args, options) => serveCli(CLI, args, options);

test('shoehorn-cli serve', async (t) => {
    const s = await serve([MODEL, '--port', '0', '--api-key', KEY + ',' + KEY + '-second', '--metrics', '--parallel', '2', '-c', '2048']);
    assert.ok(s.base, s.out());
    // llama-server's arithmetic: -np 2 gives each slot half of -c, and there are two slots (#30).
    assert.match(s.out(), /settings: -ngl \d+ --n-cpu-moe \d+ -c 2048 \(2 slots of 1024 each\)/);
    assert.ok(!s.out().includes(KEY), 'the key was printed');
    try {
        await checkServer(t, s.base, { slots: 2, keys: [KEY, KEY + '-second'] });

        await t.test('/props and /slots: -np slots, -c / -np each, as llama-server', async () => {
            const p = JSON.parse((await get(s.base, '/props')).text);
            assert.equal(p.total_slots, 2);
            assert.equal(p.default_generation_settings.n_ctx, 1024);
            const slots = JSON.parse((await get(s.base, '/slots')).text);
            assert.deepEqual(slots.map((x) => [x.id, x.n_ctx]), [[0, 1024], [1, 1024]]);
        });

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

// llama-server's other routes and flags (#30): each as llama-server answers it, or refused at start.
test('llama-server\'s routes, aliases and tags; --sleep-idle-seconds and --ui-mcp-proxy named', async () => {
    const s = await serve([MODEL, '--port', '0', '--api-key', KEY, '--alias', 'first,second', '--tags', 't1,t2']);
    try {
        const models = JSON.parse((await get(s.base, '/v1/models')).text).data;
        assert.deepEqual([models[0].id, models[0].aliases, models[0].tags], ['first', ['first', 'second'], ['t1', 't2']]);
        const responses = await post(s.base, '/responses', JSON.stringify({ input: 'hi', max_output_tokens: 3 }));
        assert.equal(responses.status, 200, responses.text.slice(0, 300));
        assert.equal(JSON.parse(responses.text).object, 'response');
        for (const path of ['/chat/completions/input_tokens', '/v1/chat/completions/input_tokens']) {
            const r = await post(s.base, path, JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));
            assert.equal(r.status, 200, path + ': ' + r.text.slice(0, 300));
            assert.ok(JSON.parse(r.text).input_tokens > 0);
        }
        const tokens = await post(s.base, '/v1/responses/input_tokens', JSON.stringify({ input: 'hi' }));
        assert.equal(tokens.status, 200, tokens.text.slice(0, 300));
        const proxy = await get(s.base, '/cors-proxy');
        assert.equal(proxy.status, 403);
        assert.equal(JSON.parse(proxy.text).error.type, 'feature_disabled');
        const slotAction = await post(s.base, '/slots/0?action=erase', '{}');
        assert.equal(slotAction.status, 501); // no --slot-save-path, as llama-server says
        // Not llama-server's "start it with --embeddings", a flag serve refuses.
        for (const [route, what] of [['/v1/embeddings', 'embeddings are'], ['/embedding', 'embeddings are'], ['/v1/rerank', 'reranking is']]) {
            const r = await post(s.base, route, JSON.stringify({ input: 'hi', query: 'hi', documents: ['a'] }));
            assert.equal(r.status, 501, route);
            assert.match(JSON.parse(r.text).error.message, new RegExp(`^Shoehorn serves chat and completion models: ${what} not served here \\(llama-server with an? \\w+ model does\\)$`));
        }
    } finally {
        s.proc.kill('SIGKILL');
    }
    for (const [flag, says] of [[['--sleep-idle-seconds', '300'], /--sleep-idle-seconds: Shoehorn keeps the model loaded/],
                                [['--ui-mcp-proxy'], /--ui-mcp-proxy: the web UI's MCP proxy is not served/],
                                [['--tools', 'all'], /--tools: the server's built-in tools/],
                                [['--mcp-servers-json', '{}'], /MCP servers .* are not run/],
                                [['--cache-ram', '100'], /--cache-ram: the host-RAM prompt cache is not kept/],
                                [['-mg', '99'], /-mg 99: .*the model (runs on the CPU|gets \d+ GPU)/]]) {
        const r = await serve([MODEL, '--port', '0', ...flag], { waitUrl: false });
        assert.equal(r.code, 2, r.out());
        assert.match(r.out(), says);
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

test('--no-ui: / answers 404 as llama-server', async () => {
    for (const [args, status, says] of [[[], 200, /<html/i], [['--no-ui'], 404, /not_found_error/]]) {
        const s = await serve([MODEL, '--port', '0', ...args]);
        try {
            const page = await get(s.base, '/');
            assert.equal(page.status, status, args.join(' '));
            assert.match(page.text, says);
        } finally {
            s.proc.kill('SIGKILL');
        }
    }
});

test('-b 64: the prompt in micro-batches of 64, a progress event after each (llama.cpp\'s test_return_progress)', async () => {
    const s = await serve([MODEL, '--port', '0', '-b', '64', '-c', '256', '-np', '1']);
    try {
        const r = await post(s.base, '/chat/completions', JSON.stringify({
            messages: [{ role: 'user', content: 'This is a test'.repeat(10) }], max_tokens: 4, stream: true,
            return_progress: true }));
        assert.equal(r.status, 200, r.text.slice(0, 300));
        const progress = r.text.split('\n').filter((l) => l.startsWith('data: {'))
            .map((l) => JSON.parse(l.slice(6)).prompt_progress).filter(Boolean);
        const total = progress[0].total;
        assert.ok(total > 128, `prompt of ${total} tokens`);
        // One event as the prompt starts, then one per micro-batch (before the fix: 0, then all).
        assert.deepEqual(progress.map((p) => p.processed),
                         [0, ...Array.from({ length: Math.ceil(total / 64) }, (_, i) => Math.min(total, 64 * (i + 1)))]);
    } finally {
        s.proc.kill('SIGKILL');
    }
});

test('speculative decoding as llama-server\'s flags say: the same answer at temperature 0, timings say drafted and accepted', async () => {
    const ask = async (args) => {
        const s = await serve([MODEL, '--port', '0', ...args]);
        try {
            const r = await post(s.base, '/completion', JSON.stringify({
                prompt: 'a b c a b c a b c a b c', n_predict: 64, temperature: 0 }));
            assert.equal(r.status, 200, r.text.slice(0, 300));
            return { ...JSON.parse(r.text), out: s.out() };
        } finally {
            s.proc.kill('SIGKILL');
        }
    };
    const plain = await ask([]);
    assert.equal(plain.timings.draft_n, undefined);
    for (const args of [['--spec-type', 'ngram-simple', '--spec-ngram-simple-size-n', '2'],
                        ['-md', MODEL, '--spec-draft-n-max', '4']]) {
        const r = await ask(args);
        assert.equal(r.content, plain.content, args.join(' '));
        assert.ok(r.timings.draft_n > 0 && r.timings.draft_n_accepted > 0, JSON.stringify(r.timings));
        assert.match(r.out, /settings: .* --spec-type (ngram-simple|draft-simple)/);
    }
    // A draft model that cannot be one: named, and the model is served without speculation.
    const notes = path.join(os.tmpdir(), `shoehorn-notes-${process.pid}.gguf`);
    fs.writeFileSync(notes, 'not a model\n');
    try {
        const r = await ask(['-md', notes]);
        assert.equal(r.content, plain.content);
        assert.match(r.out, /note: -md .*notes.*\.gguf: /);
    } finally {
        fs.rmSync(notes, { force: true });
    }
});

// README: a model that cannot be used exits with 2 (the unit's RestartPreventExitStatus), and the
// message names the file (beside --mmproj and -md, "not GGUF" alone leaves the user guessing).
test('a model that cannot be used: named, exit 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoehorn-badmodel-'));
    try {
        const text = path.join(dir, 'notes.gguf');
        fs.writeFileSync(text, 'not a model\n');
        const cut = path.join(dir, 'cut.gguf');
        fs.writeFileSync(cut, fs.readFileSync(MODEL).subarray(0, 100000));
        for (const [file, says] of [[text, /error \(not-gguf\): .*notes\.gguf: /], [cut, /error \(truncated\): .*cut\.gguf: /],
                                    [path.join(dir, 'gone.gguf'), /error \(file-not-found\): .*gone\.gguf/]]) {
            const r = await serve([file, '--port', '0'], { waitUrl: false });
            assert.equal(r.code, 2, r.out());
            assert.match(r.out(), says);
        }
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});

// chat and plan warn about -c above the trained context; serve said nothing (llama-server's log caps
// it in a line of its own): a slot's share of -c is what is compared.
test('-c above the trained context: a warning, and the server runs', async () => {
    const s = await serve([MODEL, '--port', '0', '-c', '100000']);
    try {
        assert.ok(s.base, s.out());
        assert.match(s.out(), /warning: -c \d+ is above the model's trained context of 2048 tokens/);
    } finally {
        s.proc.kill('SIGINT');
        assert.equal((await s.exited).code, 0);
    }
    const fits = await serve([MODEL, '--port', '0', '-c', '4096', '-np', '2']); // 2048 a slot: no warning
    try {
        assert.ok(fits.base, fits.out());
        assert.doesNotMatch(fits.out(), /warning: -c/);
    } finally {
        fits.proc.kill('SIGINT');
        await fits.exited;
    }
});

test('a port in use gets a clear message and a free one', async () => {
    const first = await serve([MODEL, '--port', '0']);
    const port = new URL(first.base).port;
    try {
        const second = await serve([MODEL, '--port', port]);
        assert.equal(second.code, 2); // a configuration error: the service unit does not restart it
        assert.match(second.out(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use by another program: --port \\d+ is free`));
    } finally {
        first.proc.kill('SIGINT');
        assert.equal((await first.exited).code, 0);
    }
});

// What one client could do to the server before (an audit, 2026-12-04; cmake/LlamaFixes.cmake,
// engine/internal/httpstop.h): a grammar nested too deep killed the process, a burst of silent
// connections kept /health from answering, and one silent client kept SIGINT from ending it.
test('hostile clients: deep grammars are refused, silent connections block nothing, SIGINT still stops', async () => {
    const s = await serve([MODEL, '--port', '0', '--api-key', KEY]);
    const silent = [];
    try {
        const ask = (grammar) => post(s.base, '/v1/chat/completions', JSON.stringify({
            messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, grammar }));
        const nested = await ask('root ::= ' + '('.repeat(30000) + '"a"' + ')'.repeat(30000));
        assert.equal(nested.status, 400, nested.text.slice(0, 300));
        assert.match(nested.text, /failed to parse grammar/);
        let chain = 'root ::= r0\n';
        for (let i = 0; i < 100000; ++i) chain += `r${i} ::= r${i + 1}\n`;
        const chained = await ask(chain + 'r100000 ::= "a"\n');
        assert.equal(chained.status, 400, chained.text.slice(0, 300));
        assert.equal((await ask('root ::= ("a" | "b")+')).status, 200); // a grammar still works
        // A JSON schema nested 30000 deep held an HTTP thread for minutes in llama.cpp's
        // schema-to-grammar conversion: past 256 levels the request is refused at once.
        const nestedSchema = (depth) => '{"type":"object","properties":{"a":'.repeat(depth) + '{"type":"string"}' +
                                        '},"required":["a"]}'.repeat(depth);
        const schemaAsk = (depth) => post(s.base, '/v1/chat/completions', '{"messages":[{"role":"user","content":"hi"}],' +
            '"max_tokens":2,"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":' + nestedSchema(depth) + '}}}');
        const t30000 = performance.now();
        const deepSchema = await Promise.race([schemaAsk(30000), new Promise((r) => setTimeout(() => r({
            status: 'no answer within 10 s', text: '' }), 10000))]);
        assert.equal(deepSchema.status, 400, deepSchema.text.slice(0, 300));
        assert.match(JSON.parse(deepSchema.text).error.message, /nests more than 256 levels deep/);
        assert.ok(performance.now() - t30000 < 2000, `a schema 30000 deep took ${performance.now() - t30000} ms`);
        assert.equal((await schemaAsk(20)).status, 200); // a schema as deep as real ones still works
        // The client's mistakes are 400, not llama-server's 500 "server_error".
        const mistakes = [
            { messages: [{ content: 'hi' }] },
            { messages: [{ role: 5, content: 'hi' }] },
            { messages: [{ role: 'user', content: 'hi' }], tools: 'x' },
            { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] },
        ];
        for (const body of mistakes) {
            const r = await post(s.base, '/v1/chat/completions', JSON.stringify(body));
            assert.equal(r.status, 400, JSON.stringify(body) + ' ' + r.text.slice(0, 300));
            assert.equal(JSON.parse(r.text).error.type, 'invalid_request_error');
        }
        const detok = await post(s.base.replace(/\/v1$/, ''), '/detokenize', JSON.stringify({ tokens: [999999999] }));
        assert.equal(detok.status, 400, detok.text);
        assert.match(JSON.parse(detok.text).error.message, /^a token id or an index in the request is out of range$/);
        // Rounds of 30 connections that each send one byte and stay silent, one right after the
        // other (a burst finds the pool's idle threads not yet woken): /health still answers.
        const { port } = new URL(s.base);
        const health = s.base.replace(/\/v1$/, '') + '/health';
        for (let round = 0; round < 3; ++round) {
            for (let i = 0; i < 30; ++i) {
                const c = await new Promise((resolve, reject) => {
                    const sock = net.connect(Number(port), '127.0.0.1', () => resolve(sock));
                    sock.on('error', reject);
                });
                c.on('error', () => {});
                c.write('G');
                silent.push(c);
            }
            const t0 = performance.now();
            const h = await fetch(health, { signal: AbortSignal.timeout(5000) }).catch((e) => ({ status: String(e) }));
            assert.equal(h.status, 200, `round ${round}: /health with ${silent.length} silent connections`);
            assert.ok(performance.now() - t0 < 2000, `/health took ${performance.now() - t0} ms`);
            if (round < 2)
                silent.splice(0).forEach((c) => c.destroy());
            await new Promise((r) => setTimeout(r, 200));
        }
        const t1 = performance.now();
        s.proc.kill('SIGINT');
        const e = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r({ code: 'still running' }), 10000))]);
        assert.equal(e.code, 0, 'after SIGINT with silent clients: ' + s.out().slice(-1000));
        assert.ok(performance.now() - t1 < 5000, `stopping took ${performance.now() - t1} ms`);
    } finally {
        for (const c of silent) c.destroy();
        s.proc.kill('SIGKILL');
    }
});

test('a host other machines reach needs a key', async () => {
    const r = await serve([MODEL, '--host', '0.0.0.0', '--port', '0']);
    assert.equal(r.code, 2);
    assert.match(r.out(), /--host 0\.0\.0\.0 is reachable from other machines: set an API key first/);
});

const props = async (base, query = '') => JSON.parse((await get(base, '/props' + query)).text).default_generation_settings.params;

// The guides' own command lines, with fixture paths and a free port (issue: llama-server drop-in).
test('the guides\' router line: --host 0.0.0.0 --api-key --metrics --parallel 2 -fit on -fitt 768 --models-preset', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoehorn-serve-'));
    const ini = path.join(dir, 'models.ini');
    fs.copyFileSync(MODEL, path.join(dir, 'second.gguf'));
    // [*] for every model; a relative path is found beside the file; a preset's sampling is its default.
    fs.writeFileSync(ini, `version = 1\n[*]\nc = 1024\n\n[tiny]\nmodel = ${MODEL}\ntemp = 0.3\n\n` +
                          `[second]\nmodel = second.gguf\nctx-size = 512\ntop-k = 7\n`);
    // glibc fills freed memory: a model freed under a request that still uses it shows.
    const s = await serve(['--host', '0.0.0.0', '--api-key', KEY, '--metrics', '--parallel', '2', '-fit', 'on',
        '-fitt', '768', '--models-preset', ini, '--port', '0'], { env: { MALLOC_PERTURB_: '165' } });
    try {
        assert.ok(s.base, s.out());
        assert.match(s.out(), /WARNING: --host 0\.0\.0\.0: other machines can reach this server/);
        assert.match(s.out(), /router: models second, tiny, one loaded at a time/);
        const listed = async () => Object.fromEntries((await client(s.base).models.list()).data.map((m) => [m.id, m.status.value]));
        assert.deepEqual(await listed(), { second: 'unloaded', tiny: 'unloaded' });
        // The request's model picks the preset; it loads on demand.
        assert.ok((await stream(client(s.base), 'hi', 4, { model: 'tiny' })).times.length > 0);
        assert.deepEqual(await listed(), { second: 'unloaded', tiny: 'loaded' });
        assert.match(s.out(), /-c 1024 \(2 slots of 512 each\)/);
        assert.equal((await props(s.base, '?model=tiny')).temperature.toFixed(2), '0.30');
        // Another model: the first is unloaded, the second loaded with its own settings.
        assert.ok((await stream(client(s.base), 'hi', 4, { model: 'second' })).times.length > 0);
        assert.deepEqual(await listed(), { second: 'loaded', tiny: 'unloaded' });
        assert.match(s.out(), /-c 512 \(2 slots of 256 each\)/);
        const p = await props(s.base, '?model=second');
        assert.equal(p.top_k, 7);
        assert.equal(p.temperature.toFixed(2), '0.80'); // llama-server's default: the file sets none here
        // A name the file does not have: 400 that lists the models.
        const r = await post(s.base, '/v1/chat/completions', JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }));
        assert.equal(r.status, 400);
        assert.match(JSON.parse(r.text).error.message, /no model "nope" here; the models are second, tiny/);
        // llama-server's router routes: unload and load by name.
        assert.equal((await post(s.base, '/models/unload', JSON.stringify({ model: 'second' }))).status, 200);
        assert.deepEqual(await listed(), { second: 'unloaded', tiny: 'unloaded' });
        assert.equal((await post(s.base, '/models/load', JSON.stringify({ model: 'tiny' }))).status, 200);
        assert.deepEqual(await listed(), { second: 'unloaded', tiny: 'loaded' });
        assert.equal((await get(s.base, '/v1/models', null)).status, 401); // the router's key
        // Another model asked for while a stream runs: the stream ends whole, then the switch;
        // the first model is freed after its last response, not under it. Twice: unload too.
        for (const next of ['second', null]) {
            let first;
            const started = new Promise((resolve) => { first = resolve; });
            const long = (async () => {
                const st = await client(s.base).chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }],
                    max_tokens: 400, stream: true, ignore_eos: true }); // 512 cells a slot
                let n = 0, finish = null;
                for await (const c of st) {
                    if (c.choices?.[0]?.delta?.content && ++n === 1) first();
                    finish = c.choices?.[0]?.finish_reason ?? finish;
                }
                return { n, finish };
            })();
            await started;
            const mark = s.out().length;
            const switched = next ? stream(client(s.base), 'hi', 4, { model: next })
                                  : post(s.base, '/models/unload', JSON.stringify({ model: 'tiny' }));
            const [{ n, finish }, r] = await Promise.all([long, switched]);
            assert.ok(n > 100 && finish === 'length', `the stream ended early: ${n} pieces, ${finish}\n${s.out()}`);
            if (next)
                assert.ok(r.times.length > 0, s.out());
            else
                assert.equal(r.status, 200, r.text);
            assert.deepEqual(await listed(), { second: next ? 'loaded' : 'unloaded', tiny: 'unloaded' }, s.out());
            // The next model loads once the first one's memory is free, not while it is freed.
            const said = s.out().slice(mark);
            assert.ok(next ? /unloaded \[tiny\]\nloading \[second\]\n/.test(said) : /unloaded \[tiny\]\n/.test(said), said);
            if (next)
                assert.equal((await post(s.base, '/models/load', JSON.stringify({ model: 'tiny' }))).status, 200);
        }
    } finally {
        s.proc.kill('SIGINT');
        await s.exited;
    }
    try {
        fs.writeFileSync(ini, `version = 1\n[broken]\nmodel = ${MODEL}\nno-such-flag = 1\n`);
        const bad = await serve(['--models-preset', ini, '--port', '0']);
        assert.equal(bad.code, 2);
        assert.match(bad.out(), /models\.ini/);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true }); // the preset and a copy of the model
    }
});

test('the guides\' single-model line: -c --temp --top-p --top-k --min-p -m --alias --metrics --mmproj --context-shift --parallel 1', async () => {
    const s = await serve(['-c', '102400', '--temp', '1.0', '--top-p', '0.95', '--top-k', '20', '--min-p', '0.00',
        '-m', process.env.VISION_FIXTURE, '--alias', 'NAME', '--metrics', '--mmproj', process.env.VISION_MMPROJ,
        '--context-shift', '--parallel', '1', '--port', '0']);
    try {
        assert.ok(s.base, s.out());
        assert.match(s.out(), /-c 102400 \(one slot\)/);
        assert.equal((await client(s.base).models.list()).data[0].id, 'NAME');
        const p = await props(s.base);
        assert.equal(p.temperature, 1);
        assert.equal(p.top_k, 20);
        assert.equal(p.min_p, 0);
        assert.equal(p.top_p.toFixed(2), '0.95');
        const seen = await client(s.base).chat.completions.create({ model: 'NAME', max_tokens: 4, messages: [{
            role: 'user', content: [{ type: 'image_url', image_url: { url: bmpDataUrl(64, 64) } }, { type: 'text', text: 'what?' }] }] });
        assert.ok(seen.usage.prompt_tokens > 10);
        assert.equal((await get(s.base, '/metrics')).status, 200);
    } finally {
        s.proc.kill('SIGTERM');
        await s.exited;
    }
});

test('the guides\' KV line on a model whose head size is 16: the real cause, exit 2', async () => {
    const r = await serve([MODEL, '-c', '2048', '-ctk', 'q8_0', '-ctv', 'q8_0', '-fa', 'on', '--port', '0']);
    assert.equal(r.code, 2, r.out());
    assert.match(r.out(), /-ctk q8_0 stores blocks of 32 values, so it needs a head size that is a multiple of 32; this model's K head size is 16/);
    assert.doesNotMatch(r.out(), /does not fit/);
});

test('llama-server\'s parser: an unknown flag and a bad value are refused as llama-server refuses them; --help works', async () => {
    const unknown = await serve([MODEL, '--no-such-flag']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.out(), /invalid argument: --no-such-flag/);
    const bad = await serve([MODEL, '-c', 'lots']);
    assert.equal(bad.code, 2);
    assert.match(bad.out(), /-c lots: not a number \(a whole number is wanted\)/); // llama.cpp's words were "stoi"
    const help = await serve(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out(), /--cors-origins ORIGINS/);
    assert.match(help.out(), /Shoehorn's\s+differences/);
});

test('sampling: the model file\'s recommendation where the command line sets nothing; --api-key-file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoehorn-serve-'));
    const keyFile = path.join(dir, 'key');
    fs.writeFileSync(keyFile, KEY + '\n', { mode: 0o600 });
    const s = await serve([process.env.SAMPLING_FIXTURE, '--temp', '1.1', '--api-key-file', keyFile, '--port', '0']);
    try {
        assert.ok(s.base, s.out());
        const p = await props(s.base);
        assert.equal(p.top_k, 20); // general.sampling.top_k
        assert.equal(p.min_p, 0); // general.sampling.min_p
        assert.equal(p.temperature.toFixed(2), '1.10'); // given: wins over the file's 0.6
        assert.equal((await get(s.base, '/v1/models', 'wrong')).status, 401);
    } finally {
        s.proc.kill('SIGTERM');
        await s.exited;
        fs.rmSync(dir, { recursive: true, force: true }); // the key file
    }
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
