#!/usr/bin/env node
// The package's preinstall step. onnxruntime-node's own postinstall downloads its CUDA execution
// provider (three shared libraries from a NuGet feed, not from the npm registry) on linux-x64
// unless those files are already there; a machine that reaches only the npm registry then fails the
// whole `npm install -g`. Alexandria runs ONNX on the CPU only (src/adapters/embeddings), so before
// npm reaches that postinstall (npm runs every package's preinstall first, then every install, then
// every postinstall) this writes a stand-in for each missing file, named by onnxruntime-node's own
// install manifest: its postinstall then finds them and downloads nothing. The same idea as
// native/omitted-prebuilt for node-llama-cpp's GPU binaries. In a clone, package.json's allowScripts
// already keeps that postinstall from running; this covers installs of the packed tarball, where a
// package's allowScripts is not consulted. docs/decisions/0044-install-anywhere.md
//
// Asking for CUDA still works: ONNXRUNTIME_NODE_INSTALL=cuda12 (or npm's
// --onnxruntime-node-install=cuda12) makes onnxruntime-node download over the stand-ins, and this
// step leaves the files alone when it sees that request. It never fails the install.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** True when the installing user asked onnxruntime-node for its optional download. */
function downloadRequested() {
  return [
    'ONNXRUNTIME_NODE_INSTALL',
    'npm_config_onnxruntime_node_install',
    'ONNXRUNTIME_NODE_INSTALL_CUDA',
    'npm_config_onnxruntime_node_install_cuda',
  ].some((name) => process.env[name] !== undefined && process.env[name] !== 'skip');
}

/** The files onnxruntime-node's postinstall would download for this platform, as absolute paths. */
function downloadedFiles() {
  const root = dirname(require.resolve('onnxruntime-node/package.json'));
  const metadata = require(join(root, 'script', 'install-metadata.js'));
  const platform = `${process.platform}/${process.arch}`;
  const folder = join(root, 'bin', 'napi-v6', platform);
  return (metadata.requirements[platform] ?? []).flatMap((name) =>
    Object.keys(metadata.manifests[`${platform}:${name}`] ?? {}).map((file) => join(folder, file)),
  );
}

try {
  if (!downloadRequested()) {
    const written = [];
    for (const file of downloadedFiles()) {
      if (existsSync(file)) continue;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(
        file,
        'Stand-in written by alexandria (scripts/omit-cuda-download.mjs): the CUDA execution provider ' +
          'is not installed. Reinstall with ONNXRUNTIME_NODE_INSTALL=cuda12 to download it.\n',
      );
      written.push(file);
    }
    if (written.length > 0) {
      console.log(
        `omit-cuda-download: CPU only; onnxruntime-node will not download ${written.length} CUDA files`,
      );
    }
  }
} catch (error) {
  // onnxruntime-node not installed yet or laid out differently: its own postinstall decides.
  console.warn(`omit-cuda-download: ${error instanceof Error ? error.message : error}`);
}
