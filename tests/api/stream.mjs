// One streamed chat completion with the official client, for tests outside node (the app's
// window test): node stream.mjs BASE_URL KEY MAX_TOKENS. Prints {"chunks":N,"first":ms,"last":ms,
// "model":id} (epoch milliseconds of the first and last content chunk) and exits 0, or prints
// the error and exits 1.
import { client, stream } from './apitest.mjs';

const [base, key, max] = process.argv.slice(2);
try {
    const api = client(base, key);
    const models = await api.models.list();
    const r = await stream(api, 'hello from another tool', Number(max), { model: models.data[0].id });
    const epoch = (t) => Math.round(performance.timeOrigin + t);
    console.log(JSON.stringify({ chunks: r.times.length, first: epoch(r.times[0]), last: epoch(r.times.at(-1)),
                                 model: models.data[0].id }));
} catch (e) {
    console.log('error: ' + e.message);
    process.exit(1);
}
