import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { buildWebUi, launchBrowser, screenshot } from '../helpers/browser.js';
import { figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { needsChromium } from '../helpers/requirements.js';
import { createTestApp, type TestApp, uploadPdf, withKey } from '../helpers/test-app.js';
import { aclPapers, freePort, startPdfServer, stopServer } from '../helpers/web-fixtures.js';

/**
 * The page's journeys of issue 16, in a real chromium against the real service: the chat survives
 * following a citation, uploads and slow answers show progress, people see readable references (no
 * document ids, no API hints), TeX and escaped text render cleanly, the full text of an unreachable
 * PDF is not offered once it failed, the search count is the API's count for what the box sent, and
 * a typed question is searched as a question (`query`; decision 0045).
 */

/** What people must never read on the page: document ids, API parameters, markdown escapes. */
const machineText = /PROJ:|PDF_URL:|chunk=|pdf_id|\/api\/|\\\(|\\\[/;

let t: TestApp;
let pdfServer: Server;
let pdfOrigin: string;
let webDir: string;
let baseUrl: string;
let browser: BrowserContext;
let page: Page;
let stored: Paper;

/** What people see of an element: its rendered text (hidden elements and markup left out). */
function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here
  return locator.innerText();
}

async function signIn(target: Page, origin: string, key: string): Promise<void> {
  await target.goto(`${origin}/`);
  await target.getByLabel('API key').fill(key);
  await target.keyboard.press('Enter');
  await target.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
}

async function startApp(env: Record<string, string> = {}): Promise<{ app: TestApp; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await createTestApp({
    ALEXANDRIA_WEB_DIR: webDir,
    ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
    ALEXANDRIA_PUBLIC_URL: url,
    ...env,
  });
  await app.app.listen({ host: '127.0.0.1', port });
  return { app, url };
}

describe.skipIf(needsChromium())('web page journeys in a real browser (issue 16)', () => {
  beforeAll(async () => {
    webDir = await buildWebUi();
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    if (webDir) await rm(webDir, { recursive: true, force: true });
  });

  describe('search, reader, chat, upload and offline journeys', () => {
    beforeAll(async () => {
      // Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
      ({ origin: pdfOrigin, server: pdfServer } = await startPdfServer({
        '/deltas.pdf': await figurePaperPdf(),
      }));
      ({ app: t, url: baseUrl } = await startApp());
      await t.container.stores.index.upsert([
        ...aclPapers(500),
        {
          ...emptyPaper('Sediment budgets of three small river deltas'),
          authors: ['Alexandria Test Documents'],
          abstract:
            'Three small deltas below rivers with no dam, a weir and a reservoir: four years of sediment delivery, and how their shorelines advanced or retreated.',
          year: 2024,
          publication_date: '2024-01-15',
          type: 'preprint',
          pdf_url: `${pdfOrigin}/deltas.pdf`,
          identifiers: { arxiv: '2304.02623' },
        },
        {
          // A PDF on a host no resolver knows (RFC 6761): what every remote PDF is to an offline server.
          ...emptyPaper('Offline Reading of Scholarly PDFs: A Field Study'),
          authors: ['Ada Example'],
          abstract: 'A field study of offline reading habits of scholarly PDFs in remote research stations.',
          year: 2021,
          publication_date: '2021-05-01',
          type: 'journal-article',
          pdf_url: 'https://papers.example.invalid/offline-reading.pdf',
        },
      ]);
      // The paper the chat cites from a project, parsed and embedded once, untimed (the shared machine
      // may take longer than an agent tool deadline for a cold read).
      const added = await uploadPdf(t, t.key, 'deltas.pdf', await figurePaperPdf(), 'project_id=gpt');
      expect(added.statusCode).toBe(200);
      stored = added.json()[0] as Paper;
      await t.container.services.fullText.ask('tenant-a', stored.pdf_id as string, 'warm up', { topK: 1 });
      page = await browser.newPage();
      await signIn(page, baseUrl, t.key);
    }, 600_000);

    afterAll(async () => {
      await page?.close();
      await t?.close();
      await stopServer(pdfServer);
    });

    /** Types `text` in the search box and searches: the parameters the page sent, the count it shows. */
    async function searchFromBox(text: string): Promise<{ sent: URLSearchParams; shown: number }> {
      const sent = page.waitForRequest((request) => request.url().includes('/api/abstracts'));
      await page.getByLabel('What are you looking for?').fill(text);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const parameters = new URL((await sent).url()).searchParams;
      const count = page.locator('.result-count');
      await expect.poll(() => count.textContent(), { timeout: 30_000 }).toMatch(/^\d+ results?/);
      const shown = Number(/^(\d+) results?/.exec((await count.textContent()) ?? '')?.[1]);
      return { sent: parameters, shown };
    }

    /** The API's total for `text` sent as `parameter`. */
    async function apiTotal(parameter: 'keywords' | 'query', text: string): Promise<number> {
      const response = await fetch(`${baseUrl}/api/abstracts?${parameter}=${encodeURIComponent(text)}`, {
        headers: withKey(t.key),
      });
      return Number(response.headers.get('x-total-count'));
    }

    it('counts search results as the API keyword search does, for what the user typed', async () => {
      const typed = 'annotation tool';
      const { sent, shown } = await searchFromBox(typed);
      expect(sent.get('keywords')).toBe(typed);
      expect(sent.has('query')).toBe(false);
      const keywordTotal = await apiTotal('keywords', typed);
      expect(shown).toBe(keywordTotal);
      // The ranking search (any word) finds more: the number the page used to show.
      expect(await apiTotal('query', typed)).toBeGreaterThan(keywordTotal);
      await screenshot(page, 'j01-search-count');
    });

    it('searches a typed question as a question: the papers on it first, where keywords found one (decision 0045)', async () => {
      const asked = 'how to detect hallucinations in abstractive summarization';
      const { sent, shown } = await searchFromBox(asked);
      expect(sent.get('query')).toBe(asked);
      expect(sent.has('keywords')).toBe(false);
      // Every word required (what the box sent before) finds one paper of the 500; the question, 87.
      const keywordTotal = await apiTotal('keywords', asked);
      expect(keywordTotal).toBeLessThanOrEqual(1);
      expect(shown).toBe(await apiTotal('query', asked));
      expect(shown).toBeGreaterThanOrEqual(10 * Math.max(1, keywordTotal));
      const titles = await page.locator('.results .paper h3').allTextContents();
      expect(titles[0]).toBe(
        'Hallucinated but Factual! Inspecting the Factuality of Hallucinations in Abstractive Summarization',
      );
      expect(titles.slice(0, 3)).toContain(
        'A Token-level Reference-free Hallucination Detection Benchmark for Free-form Text Generation',
      );
      await screenshot(page, 'j01b-search-question');
    });

    it('shows a readable reference in the reader, never the document id or API hints', async () => {
      await page.getByLabel('What are you looking for?').fill('sediment budgets of river deltas');
      await page.getByLabel('Peer-reviewed only').uncheck();
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const card = page.locator('.results .paper', { hasText: 'Sediment budgets' });
      await card.getByRole('link', { name: 'Read full text' }).click();
      const position = page.locator('.chunk-nav span');
      await expect.poll(() => position.textContent(), { timeout: 180_000 }).toMatch(/^Chunk 1 of \d+$/);

      const reference = page.locator('.document-reference');
      expect(await reference.locator('h1').textContent()).toBe(
        'Sediment budgets of three small river deltas',
      );
      expect(await reference.locator('.meta').first().textContent()).toMatch(
        /Alexandria Test Documents.*· 2024/,
      );
      expect(
        await reference.getByRole('link', { name: 'Original PDF (127.0.0.1)' }).getAttribute('href'),
      ).toBe(`${pdfOrigin}/deltas.pdf`);
      // The id stays in the markup for scripts, out of sight.
      expect(await reference.getAttribute('data-ref')).toBe(`PDF_URL:${pdfOrigin}/deltas.pdf`);
      expect(await visibleText(page.locator('main'))).not.toMatch(machineText);
      await screenshot(page, 'j02-reader-reference');
    }, 300_000);

    it('keeps the chat when a citation is followed, and continues it on return', async () => {
      await page.getByRole('link', { name: 'Chat' }).click();
      await page
        .getByLabel('Your research question')
        .fill('How does a dam upstream change the shoreline of a small river delta?');
      await page.getByRole('button', { name: 'Send' }).click();
      const answer = page.locator('.turn.assistant .answer-text').first();
      await page
        .locator('.turn.assistant .progress summary', { hasText: 'What the agent did' })
        .first()
        .waitFor({ timeout: 180_000 });
      const answered = (await visibleText(answer)).trim();
      expect(answered.length).toBeGreaterThan(40);

      // References read as references: "Full text: stored PDF" or "PDF (host)", the id in data-ref only.
      const documentLinks = answer.locator('a[data-ref]');
      expect(await documentLinks.count()).toBeGreaterThan(0);
      for (const text of await documentLinks.allTextContents())
        expect(text).toMatch(/^(stored PDF|PDF \(.+\))$/);
      expect(await visibleText(page.locator('main'))).not.toMatch(machineText);
      await screenshot(page, 'j03-chat-answer');

      // Follow a citation into the reader: the paper, readable, with a way back.
      const citation = answer.locator('a.citation[href^="#/read"]').first();
      await citation.click();
      await expect
        .poll(() => page.locator('.chunk-nav span').textContent(), { timeout: 180_000 })
        .toMatch(/^Chunk \d+ of \d+$/);
      expect(await page.locator('.document-reference h1').textContent()).toMatch(/^Sediment budgets/);
      expect(await visibleText(page.locator('main'))).not.toMatch(machineText);
      await screenshot(page, 'j04-citation-in-reader');

      await page.getByRole('link', { name: '← Back to the chat' }).click();
      await expect.poll(() => page.locator('.turn').count()).toBe(2);
      expect((await visibleText(answer)).trim()).toBe(answered);
      await screenshot(page, 'j05-chat-after-return');

      // The browser's back button returns to the same conversation too.
      await answer.locator('a.citation[href^="#/read"]').first().click();
      await page.locator('.document-reference').waitFor({ timeout: 180_000 });
      await page.goBack();
      await expect.poll(() => page.locator('.turn').count()).toBe(2);

      // …and it goes on: a follow-up is answered below the first answer.
      await page
        .getByLabel('Your research question')
        .fill('How does DoTAT reduce the event annotation time?');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.locator('.turn.assistant .answer-text').nth(1).textContent(), { timeout: 180_000 })
        .toContain('19.7%');
      await page
        .locator('.turn.assistant .progress summary', { hasText: 'What the agent did' })
        .nth(1)
        .waitFor({ timeout: 180_000 });

      // A reload of the tab keeps the conversation (sessionStorage); "New conversation" forgets it.
      await page.reload();
      await expect.poll(() => page.locator('.turn').count(), { timeout: 30_000 }).toBe(4);
      expect((await visibleText(page.locator('.turn.assistant .answer-text').first())).trim()).toBe(answered);
      await page.getByRole('button', { name: 'New conversation' }).click();
      expect(await page.locator('.turn').count()).toBe(0);
      await page.reload();
      await page.getByRole('heading', { name: 'Research chat' }).waitFor();
      expect(await page.locator('.turn').count()).toBe(0);
    }, 600_000);

    it('renders escaped paper text without backslashes: a quoted "(Li et al., 2018)" reads as written', async () => {
      const question = 'Which networks is the ProtoTEx classification architecture based on?';
      // The wire carries the escape (CommonMark's `\(`), so a markdown renderer must remove it.
      const response = await fetch(`${baseUrl}/api/chat/completions`, {
        method: 'POST',
        headers: { ...withKey(t.key), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'alexandria', messages: [{ role: 'user', content: question }] }),
      });
      const wire = (await response.json()).choices[0].message.content as string;
      expect(wire).toContain('prototype networks \\(Li et al., 2018)');

      await page.getByLabel('Your research question').fill(question);
      await page.getByRole('button', { name: 'Send' }).click();
      const answer = page.locator('.turn.assistant .answer-text').first();
      await expect
        .poll(() => visibleText(answer), { timeout: 180_000 })
        .toContain('prototype networks (Li et al., 2018)');
      expect(await visibleText(page.locator('main'))).not.toMatch(machineText);
      await screenshot(page, 'j06-escaped-text');
      await page.getByRole('button', { name: 'New conversation' }).click();
    }, 300_000);

    it('shows an upload byte by byte, then a live line while the service reads the PDF', async () => {
      await page.getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      // Everything the status line says, in order, as the page changes it.
      await page.evaluate(() => {
        const log: string[] = [];
        (window as unknown as { uploadLog: string[] }).uploadLog = log;
        new MutationObserver(() => {
          const text = document.querySelector('.upload-progress')?.textContent ?? '';
          if (text && log[log.length - 1] !== text) log.push(text);
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      // A slow uplink (256 KB/s), so a 1.5 MB PDF (a generated 1,201-page report) takes seconds to
      // send, as it does over a real network.
      const cdp = await browser.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 256 * 1024,
      });
      await page.getByLabel('Upload a PDF').setInputFiles({
        name: 'report.pdf',
        mimeType: 'application/pdf',
        buffer: await gaugingReportPdf(1200),
      });
      await page.locator('.upload-progress progress').waitFor({ timeout: 30_000 });
      await screenshot(page, 'j07-upload-progress');
      await expect
        .poll(() => page.locator('[role=status].ok').first().textContent(), { timeout: 300_000 })
        .toMatch(/^Uploaded “/);
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      const log = await page.evaluate(() => (window as unknown as { uploadLog: string[] }).uploadLog);
      const sending = log.filter((line) =>
        /^Uploading “report\.pdf”: [\d.]+ MB of 1\.[5-6] MB \(\d+%\)/.test(line),
      );
      const percents = new Set(sending.map((line) => /\((\d+)%\)/.exec(line)?.[1]));
      expect(percents.size).toBeGreaterThanOrEqual(3);
      expect(log.some((line) => /^Reading “report\.pdf” on the server .*\d+ s/.test(line))).toBe(true);
      // Sending comes first, reading after.
      const firstReading = log.findIndex((line) => line.startsWith('Reading'));
      expect(log.findIndex((line) => line.startsWith('Uploading'))).toBeLessThan(firstReading);
    }, 400_000);

    it('says clearly when a remote PDF cannot be fetched, then offers the PDF link instead', async () => {
      await page.getByRole('link', { name: 'Search' }).click();
      const query = page.getByLabel('What are you looking for?');
      await expect.poll(() => query.inputValue(), { timeout: 30_000 }).toBe('');
      await query.fill('offline reading scholarly');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const card = page.locator('.results .paper', { hasText: 'Offline Reading of Scholarly PDFs' });
      await card.getByRole('link', { name: 'Read full text' }).click();

      const alert = page.locator('.reader .error[role=alert]');
      await alert.waitFor({ timeout: 60_000 });
      const message = await visibleText(alert);
      expect(message).toContain('Alexandria cannot reach papers.example.invalid to fetch this PDF');
      expect(message).not.toMatch(/Cannot resolve|pdf_id/);
      expect(
        await alert.getByRole('link', { name: 'Open the PDF in your browser' }).getAttribute('href'),
      ).toBe('https://papers.example.invalid/offline-reading.pdf');
      expect(await page.locator('.document-reference h1').textContent()).toBe(
        'Offline Reading of Scholarly PDFs: A Field Study',
      );
      await screenshot(page, 'j08-offline-read');

      // Back in the results: the remote full text is not offered while the server is offline…
      await page.goBack();
      await card.waitFor({ timeout: 30_000 });
      expect(await card.getByRole('link', { name: 'Read full text' }).count()).toBe(0);
      expect(await card.getByRole('link', { name: 'Open the PDF (papers.example.invalid)' }).count()).toBe(1);
      await screenshot(page, 'j09-offline-card');
      // …while a stored PDF still is.
      await page.getByRole('link', { name: 'Projects' }).click();
      const storedCard = page.locator('.project .paper', { hasText: 'Sediment budgets' });
      await storedCard.getByRole('link', { name: 'Read full text' }).waitFor({ timeout: 30_000 });
      await page.evaluate(() => sessionStorage.removeItem('alexandria.offlineSince'));
    }, 300_000);
  });

  describe('a language-model answer with TeX', () => {
    let model: FakeOpenAiServer;
    let llm: TestApp;
    let llmUrl: string;
    let llmPage: Page;

    beforeAll(async () => {
      model = await startFakeOpenAiServer();
      ({ app: llm, url: llmUrl } = await startApp({
        ALEXANDRIA_CHAT_URL: model.baseUrl,
        ALEXANDRIA_CHAT_MODEL: 'fake-model',
      }));
      await llm.container.stores.index.upsert(aclPapers(200));
      llmPage = await browser.newPage();
      await signIn(llmPage, llmUrl, llm.key);
    }, 300_000);

    afterAll(async () => {
      await llmPage?.close();
      await llm?.close();
      await model?.close();
    });

    it('shows a live status while the first answer is prepared, then the formula without TeX noise', async () => {
      model.setScript([
        { toolCalls: [{ name: 'search_papers', arguments: { keywords: 'ProtoTEx prototype networks' } }] },
        {
          text: [
            'ProtoTEx scores a text by its distance to learned prototypes, ',
            'with a loss of \\(\\lambda \\sum_i d_i^2\\) added to the cross-entropy, and predicts',
            '\n\n\\[ p(y \\mid x) = \\frac{e^{s_y}}{\\sum_k e^{s_k}} \\]\n\nfor each class.',
          ],
        },
      ]);
      model.delayMs = 3000;
      await llmPage.getByRole('link', { name: 'Chat' }).click();
      await llmPage.getByLabel('Your research question').fill('How does ProtoTEx score a text?');
      await llmPage.getByRole('button', { name: 'Send' }).click();
      const busy = llmPage.locator('.turn.assistant .busy');
      await expect.poll(() => busy.textContent(), { timeout: 30_000 }).toMatch(/^Working… [1-9]\d* s/);
      await screenshot(llmPage, 'j10-answer-status');

      const answer = llmPage.locator('.turn.assistant .answer-text').first();
      await expect.poll(() => visibleText(answer), { timeout: 120_000 }).toContain('for each class');
      // Inline: Greek and operators as symbols, indices as real sub- and superscripts.
      const inline = answer.locator('.math:not(.display)').first();
      expect((await visibleText(inline)).replace(/\s+/g, ' ')).toMatch(/^λ ∑i ?di ?2$/);
      expect(await inline.locator('sub').allTextContents()).toEqual(['i', 'i']);
      expect(await inline.locator('sup').allTextContents()).toEqual(['2']);
      expect(await inline.getAttribute('data-tex')).toBe('\\lambda \\sum_i d_i^2');
      // Display: on its own line, the fraction as a slash.
      const display = answer.locator('.math.display');
      expect(await display.evaluate((element) => getComputedStyle(element).display)).toBe('block');
      expect(await visibleText(display)).toMatch(/^p\(y ∣ x\) = \(e ?sy\)\/\(∑k ?e ?sk\)$/);
      expect(await visibleText(answer)).not.toMatch(/\\\(|\\\[|\\lambda|\\frac|\\sum/);
      await screenshot(llmPage, 'j11-tex');
    }, 200_000);
  });
});
