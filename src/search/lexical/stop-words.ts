/**
 * English function words dropped from BM25 queries (analyzer.ts). The list is deliberately short:
 * articles, pronouns, auxiliaries, prepositions, conjunctions and question words, which carry no
 * topic. Words that can carry one are kept even when frequent: negations ("not", "no"), numbers,
 * time words ("before", "after", "first", "last", "ago"), quantities ("many", "much", "more").
 *
 * The forms are as the analyzer sees them before stemming: lower case, with apostrophes kept in
 * contractions ("don't", "i'm"), and without a possessive "'s" (stripped first).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a an the
  i me my mine myself we us our ours ourselves you your yours yourself yourselves
  he him his himself she her hers herself it its itself they them their theirs themselves
  this that these those there here
  am is are was were be been being have has had having do does did doing done
  will would shall should can could may might must
  i'm i've i'll i'd you're you've you'll you'd we're we've we'll we'd they're they've they'll they'd
  isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't
  can't cannot couldn't shouldn't
  and or but if so than then as
  of at by for with about into onto to from in on off out up down over under
  what which who whom whose when where why how
  s t d ll m re ve`.split(/\s+/),
);
