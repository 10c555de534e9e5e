/**
 * A quick look at the raw bytes for image XObjects, before pdf.js runs. Building a page's operator
 * list (the only way pdf.js reveals where images are painted) costs about as much as extracting its
 * text, so documents without any figure-sized image skip it. Image XObjects are streams, and the PDF
 * format forbids streams inside object streams, so their dictionaries are always readable here even
 * when the rest of the file is compressed.
 */
export interface ImageSurvey {
  /** Image XObjects found. */
  images: number;
  /** Images that could be figures: large enough, and not a bilevel whole-page scan. */
  figureCandidates: number;
}

export function surveyImages(bytes: Uint8Array, minSidePixels: number): ImageSurvey {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const marker = /\/Subtype\s*\/Image\b/g;
  let images = 0;
  let figureCandidates = 0;
  for (let match = marker.exec(text); match; match = marker.exec(text)) {
    images++;
    const start = Math.max(0, match.index - 2000, text.lastIndexOf(' obj', match.index));
    const end = text.indexOf('stream', match.index);
    const dictionary = text.slice(start, end < 0 ? match.index + 600 : Math.min(end, match.index + 2000));
    const width = numberAfter(dictionary, 'Width');
    const height = numberAfter(dictionary, 'Height');
    const bits = numberAfter(dictionary, 'BitsPerComponent');
    // Dimensions given indirectly (or unreadable): assume it may be a figure.
    if (width === undefined || height === undefined) {
      figureCandidates++;
      continue;
    }
    if (Math.min(width, height) < minSidePixels) continue;
    const bilevelScan = (bits === 1 || /\/ImageMask\s*true/.test(dictionary)) && width * height >= 4_000_000;
    if (!bilevelScan) figureCandidates++;
  }
  return { images, figureCandidates };
}

function numberAfter(dictionary: string, key: string): number | undefined {
  const match = new RegExp(`/${key}\\s+(\\d+)(?!\\s+\\d+\\s+R)`).exec(dictionary);
  return match?.[1] ? Number(match[1]) : undefined;
}
