import type { IndexPage, IndexQuery, PaperIndex } from '../../ports/paper-index.js';

/** Searches one request remembers at most (about 10,000 entries, each searched by linking and checking). */
const maxRemembered = 20_000;

/**
 * The index as one reference check sees it: the same search asked twice gives the first answer.
 * Linking an entry and then checking it search the index with the same title query; a check of a
 * PDF's list of 9,999 entries made 20,000 searches where 10,000 answer (decision 0042). Lives for
 * one request only, so a write to the index meanwhile is seen by the next request.
 */
export function memoizedSearches(index: PaperIndex): PaperIndex {
  const answers = new Map<string, Promise<IndexPage>>();
  const search = (query: IndexQuery): Promise<IndexPage> => {
    const key = JSON.stringify(query);
    const remembered = answers.get(key);
    if (remembered) return remembered;
    const answer = index.search(query);
    if (answers.size < maxRemembered) {
      answers.set(key, answer);
      answer.catch(() => answers.delete(key));
    }
    return answer;
  };
  return new Proxy(index, {
    get(target, property) {
      if (property === 'search') return search;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
