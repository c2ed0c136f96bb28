// The desktop chat and one API stream at the same time, on one loaded model
// (shoehorn-concurrency-bench), against each alone: tools/concurrency-bench.sh runs it.
// Tokens per second from the first to the last token, as bench.mjs measures the API. Prints JSON.
// With REFERENCE (the base URL of llama.cpp's own llama-server on the same file), each round also
// streams one and two requests from it, right after ours: the two sides are measured interleaved,
// so a machine that slows down over minutes slows both alike.
//   node concurrency.mjs TOOL MODEL N REPS THREADS [REFERENCE]
import OpenAI from 'openai';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [tool, model, n, reps, threads, reference] =
    [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5]), process.argv[6], process.argv[7]];
// SPEC_TYPE: speculative decoding in the tool, as llama-server's --spec-type.
const spec = process.env.SPEC_TYPE ? ['--spec-type', process.env.SPEC_TYPE] : [];
const child = spawn(tool, [model, '-c', '4096', '-t', threads, ...spec], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: child.stdout });
const waiting = [];
lines.on('line', (l) => waiting.shift()?.(l));
const nextLine = () => new Promise((resolve) => waiting.push(resolve));
const listening = await nextLine();
const base = listening.replace(/^listening on /, '');
if (!base.startsWith('http')) throw new Error('the benchmark tool said: ' + listening);
const client = new OpenAI({ baseURL: base + '/v1', apiKey: 'none', maxRetries: 0, timeout: 600000 });
const refClient = reference ? new OpenAI({ baseURL: reference + '/v1', apiKey: 'none', maxRetries: 0, timeout: 600000 }) : null;
const now = () => performance.timeOrigin + performance.now();

async function api(tag, c = client) {
    const s = await c.chat.completions.create({
        model: 'any', messages: [{ role: 'user', content: 'bench ' + tag }], max_tokens: n, stream: true,
        ignore_eos: true, temperature: 0.8, stream_options: { include_usage: true },
    });
    let first = 0, last = 0, tokens = 0;
    for await (const c of s) {
        if (c.choices?.[0]?.delta?.content) { last = now(); if (!first) first = last; }
        if (c.usage) tokens = c.usage.completion_tokens;
    }
    return { first, last, tokens };
}

async function chat(tag) {
    const answer = nextLine();
    child.stdin.write(`chat ${n} ${tag}\n`);
    const r = JSON.parse(await answer);
    if (r.error) throw new Error('the desktop chat failed: ' + r.error);
    return r;
}

const tps = (r) => (r.tokens - 1) / ((r.last - r.first) / 1000);
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
const total = (a, b) => (a.tokens + b.tokens - 2) / ((Math.max(a.last, b.last) - Math.min(a.first, b.first)) / 1000);
await api('warmup');
await chat('warmup');
if (refClient) await api('warmup', refClient);
const runs = { api: [], chat: [], together: [], ref_single: [], ref_pair: [] };
for (let r = 0; r < reps; ++r) {
    runs.api.push(tps(await api('alone-' + r)));
    if (refClient) runs.ref_single.push(tps(await api('single-' + r, refClient)));
    runs.chat.push(tps(await chat('alone-' + r)));
    const [a, c] = await Promise.all([api('both-' + r), chat('both-' + r)]);
    runs.together.push({ total: total(a, c), api: tps(a), chat: tps(c) });
    if (refClient) {
        const [x, y] = await Promise.all([api('a-' + r, refClient), api('b-' + r, refClient)]);
        runs.ref_pair.push(total(x, y));
    }
}
child.stdin.write('quit\n');
console.log(JSON.stringify({
    tokens: n, reps,
    api_alone_tps: mean(runs.api),
    chat_alone_tps: mean(runs.chat),
    together_total_tps: mean(runs.together.map((x) => x.total)),
    together_api_tps: mean(runs.together.map((x) => x.api)),
    together_chat_tps: mean(runs.together.map((x) => x.chat)),
    ...(refClient ? { ref_single_tps: mean(runs.ref_single), ref_pair_tps: mean(runs.ref_pair) } : {}),
    runs,
}));
