// suggest: "did you mean …?" for mistyped commands, flags and values — the same rule cobra (kubectl, sveltosctl)
// applies: candidates within an edit distance of 2, or that start with what was typed.

/** editDistance is the optimal-string-alignment distance of a and b: insertions, deletions, substitutions and
 * transpositions of two neighbours each cost 1 (so `yml`→`yaml` is 1 and `gte`→`get` is 1). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** suggest returns the candidates close to word, closest first (ties in the candidates' order); none for a word of
 * one character, which is close to everything. */
export function suggest(word: string, candidates: Iterable<string>, maxDistance = 2): string[] {
  const w = word.toLowerCase();
  if (w.length < 2) return [];
  const scored: { c: string; d: number; i: number }[] = [];
  let i = 0;
  for (const c of new Set(candidates)) {
    const lc = c.toLowerCase();
    const d = lc.startsWith(w) ? 0 : editDistance(w, lc);
    if (d <= maxDistance && c !== word) scored.push({ c, d, i });
    i++;
  }
  return scored.sort((a, b) => a.d - b.d || a.i - b.i).map((s) => s.c);
}

/** didYouMean formats suggestions as a sentence (`; did you mean "yaml"?`), or '' when there are none. */
export function didYouMean(word: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => JSON.stringify(s)): string {
  const s = suggest(word, candidates).slice(0, 3);
  if (s.length === 0) return '';
  return `; did you mean ${s.map(quote).join(' or ')}?`;
}
