// API speed, side by side with llama-bench (tools/api-bench.sh runs it): one streaming chat
// completion, then two at once, each generating N tokens (ignore_eos). Prints JSON.
//   node bench.mjs BASE_URL N REPS
import OpenAI from 'openai';

const [base, n, reps] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const client = new OpenAI({ baseURL: base + '/v1', apiKey: 'none', maxRetries: 0, timeout: 600000 });

// Tokens per second of generation as the client sees it: from the first content chunk to the
// last (the prompt is excluded, as llama-bench's tg excludes it), and the server's own timing.
async function one(tag) {
    const s = await client.chat.completions.create({
        model: 'any', messages: [{ role: 'user', content: 'bench ' + tag }], max_tokens: n, stream: true,
        ignore_eos: true, temperature: 0.8, stream_options: { include_usage: true }, timings_per_token: false,
    });
    let first = 0, last = 0, chunks = 0, server = 0, tokens = 0;
    for await (const c of s) {
        if (c.choices?.[0]?.delta?.content) { last = performance.now(); if (!first) first = last; ++chunks; }
        if (c.timings) server = c.timings.predicted_per_second;
        if (c.usage) tokens = c.usage.completion_tokens;
    }
    return { first, last, chunks, tokens, server, client: (tokens - 1) / ((last - first) / 1000) };
}

const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
await one('warmup');
const single = [], pair = [];
for (let r = 0; r < reps; ++r) {
    single.push(await one('single ' + r));
    const [a, b] = await Promise.all([one('a ' + r), one('b ' + r)]);
    const start = Math.min(a.first, b.first), end = Math.max(a.last, b.last);
    pair.push({ total: (a.tokens + b.tokens - 2) / ((end - start) / 1000), a: a.client, b: b.client });
}
console.log(JSON.stringify({
    tokens: n, reps,
    single_client_tps: mean(single.map((x) => x.client)),
    single_server_tps: mean(single.map((x) => x.server)),
    pair_total_tps: mean(pair.map((x) => x.total)),
    runs: { single, pair },
}));
