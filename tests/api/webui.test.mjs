// llama.cpp's web UI as served by `shoehorn-cli serve`, in a real browser (Debian's chromium,
// driven by playwright-core). Env: SHOEHORN_CLI, API_FIXTURE, UI_STATUS (the build's ui-status.h:
// why the UI is not built in, empty when it is).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { KEY, raw, serveCli } from './apitest.mjs';

const CLI = process.env.SHOEHORN_CLI;
const MODEL = process.env.API_FIXTURE;
const MISSING = JSON.parse(/SHOEHORN_UI_MISSING_REASON (".*")/.exec(fs.readFileSync(process.env.UI_STATUS, 'utf8'))[1]);
// "evil.example" is this machine to the browser: a page from another site, served by the test.
const FOREIGN = 'evil.example';

function launch() {
    return chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync', `--host-resolver-rules=MAP ${FOREIGN} 127.0.0.1`],
    });
}

// A page on another origin that tries to read the API, with and without the key (the key makes
// the browser ask first: a preflight).
function foreignSite() {
    const page = '<!doctype html><title>another site</title><p>hello</p>';
    const server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page);
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function readFrom(browser, origin, api) {
    const page = await browser.newPage();
    await page.goto(origin + '/');
    const attempts = await page.evaluate(async ({ api, key }) => {
        const tryRead = async (init) => {
            try {
                const r = await fetch(api + '/v1/models', init);
                return 'read ' + r.status;
            } catch (e) {
                return 'blocked';
            }
        };
        return {
            simple: await tryRead({}),
            withKey: await tryRead({ headers: { Authorization: 'Bearer ' + key } }),
        };
    }, { api, key: KEY });
    await page.close();
    return attempts;
}

test('the web UI at /: a person enters the key, sends a message and sees the streamed answer', { skip: MISSING !== '' && 'web UI not built in' }, async () => {
    const s = await serveCli(CLI, [MODEL, '--port', '0', '--api-key', KEY, '-c', '1024', '-n', '24', '--no-check']);
    assert.ok(s.base, s.out());
    const browser = await launch();
    try {
        const page = await browser.newPage();
        const streams = [];
        page.on('response', (r) => {
            if (r.url().endsWith('/v1/chat/completions'))
                streams.push(r);
        });
        await page.goto(s.base + '/');
        // The page is public; the API is not: the UI asks for the key.
        await page.getByRole('button', { name: 'Enter API Key' }).click({ timeout: 30000 });
        await page.locator('#api-key-input').fill(KEY);
        await page.locator('#api-key-input').press('Enter');
        const input = page.locator('textarea').first();
        await input.waitFor({ timeout: 30000 });
        await input.fill('Say hello');
        await input.press('Enter');
        await page.waitForFunction(() => document.body.innerText.includes('Say hello'), null, { timeout: 30000 });
        await assert.doesNotReject(async () => {
            for (let i = 0; i < 300 && streams.length === 0; ++i)
                await new Promise((r) => setTimeout(r, 100));
        });
        assert.ok(streams.length > 0, 'the page sent no chat request');
        const response = streams[0];
        assert.equal(response.status(), 200);
        assert.match(response.headers()['content-type'], /text\/event-stream/);
        const body = await response.text();
        const text = body.split('\n').filter((l) => l.startsWith('data: {'))
            .map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
        const chunks = body.split('\n').filter((l) => l.startsWith('data: {')).length;
        assert.ok(chunks > 3, `not streamed: ${chunks} chunks`);
        // A word of the answer is on the page (the tiny model's words are random).
        const word = (text.match(/[A-Za-z]{3,}/g) ?? []).sort((a, b) => b.length - a.length)[0];
        assert.ok(word, `no word in the answer: ${JSON.stringify(text)}`);
        await page.waitForFunction((w) => document.body.innerText.includes(w), word, { timeout: 30000 });
        if (process.env.SHOT_DIR)
            await page.screenshot({ path: process.env.SHOT_DIR + '/webui.png' });
    } finally {
        await browser.close();
        s.proc.kill('SIGTERM');
        await s.exited;
    }
});

test('a page from another site cannot read the API; --cors-origins lets it', async () => {
    const site = await foreignSite();
    const origin = `http://${FOREIGN}:${site.address().port}`;
    const browser = await launch();
    try {
        const closed = await serveCli(CLI, [MODEL, '--port', '0', '--api-key', KEY, '-c', '512', '--no-check']);
        try {
            assert.deepEqual(await readFrom(browser, origin, closed.base), { simple: 'blocked', withKey: 'blocked' });
            const pre = await raw(closed.base, 'OPTIONS', '/v1/models', { Origin: origin, 'Access-Control-Request-Method': 'GET',
                'Access-Control-Request-Headers': 'authorization' });
            assert.equal(pre.status, 403);
            assert.equal(pre.headers['access-control-allow-origin'], undefined);
        } finally {
            closed.proc.kill('SIGTERM');
            await closed.exited;
        }
        // The control: the same page, allowed by name, reads it (so "blocked" above is the door).
        const open = await serveCli(CLI, [MODEL, '--port', '0', '--api-key', KEY, '-c', '512', '--no-check',
            '--cors-origins', origin]);
        try {
            assert.deepEqual(await readFrom(browser, origin, open.base), { simple: 'read 401', withKey: 'read 200' });
        } finally {
            open.proc.kill('SIGTERM');
            await open.exited;
        }
    } finally {
        await browser.close();
        site.close();
    }
});

test('without the web UI built in, / says why', { skip: MISSING === '' && 'the web UI is built in' }, async () => {
    const s = await serveCli(CLI, [MODEL, '--port', '0', '-c', '512', '--no-check']);
    try {
        const r = await raw(s.base, 'GET', '/');
        assert.equal(r.status, 200);
        assert.ok(r.text.includes(MISSING), r.text);
    } finally {
        s.proc.kill('SIGTERM');
        await s.exited;
    }
});
