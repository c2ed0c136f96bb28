// One streamed chat completion with the official client, for tests outside node (the app's
// window test): node stream.mjs BASE_URL KEY MAX_TOKENS. Prints {"chunks":N,"first":ms,"last":ms}
// (Date.now() of the first and last content chunk) and exits 0, or prints the error and exits 1.
import OpenAI from 'openai';

const [base, key, max] = process.argv.slice(2);
const client = new OpenAI({ baseURL: base + '/v1', apiKey: key, maxRetries: 0, timeout: 60000 });
try {
    const models = await client.models.list();
    const stream = await client.chat.completions.create({
        model: models.data[0].id, messages: [{ role: 'user', content: 'hello from another tool' }],
        max_tokens: Number(max), stream: true, ignore_eos: true,
    });
    let chunks = 0, first = 0, last = 0;
    for await (const chunk of stream) {
        if (chunk.choices?.[0]?.delta?.content) {
            ++chunks;
            last = Date.now();
            if (!first) first = last;
        }
    }
    console.log(JSON.stringify({ chunks, first, last, model: models.data[0].id }));
} catch (e) {
    console.log('error: ' + e.message);
    process.exit(1);
}
