// Abuse the profanity dataset does not cover because it contains no profane word: threats, insults
// addressed to someone, and hateful generalisations. Matched on normalized text (lower case, leet
// and look-alikes folded). Weights as in the prompt-injection patterns: the likelihood that a text
// is abusive when only this signal is present.

export type AbuseType = "threat" | "self_harm_incitement" | "insult" | "harassment" | "hate";

export interface AbuseSignal {
  type: AbuseType;
  weight: number;
  re: RegExp;
}

const groups =
  "(?:jews|jewish people|muslims|blacks|black people|whites|white people|gays|gay people|lesbians|homosexuals|trans people|transgender people|immigrants|migrants|refugees|foreigners|mexicans|arabs|asians|chinese|indians|africans|christians|hindus|women|men|gypsies|roma|latinos|hispanics|disabled people)";

// Single spaces in the patterns match any run of whitespace (see normalize()).
function spaced(signals: AbuseSignal[]): AbuseSignal[] {
  return signals.map((s) => ({ ...s, re: new RegExp(s.re.source.replace(/ /g, "\\s+"), s.re.flags) }));
}

export const abuseSignals: readonly AbuseSignal[] = spaced([
  {
    type: "threat",
    weight: 0.9,
    re: /\b(?:i(?:'ll| will| am going to|'m going to|m going to| am gonna|'m gonna|m gonna| gonna| shall)|we(?:'ll| will| are going to|'re going to| gonna)) (?:\w+ )?(?:kill|murder|hurt|stab|shoot|rape|beat|strangle|choke|slaughter|behead|burn|bomb|torture|break your|smash your|find where you live|find you|come for you|end you)\b/g,
  },
  {
    type: "threat",
    weight: 0.85,
    re: /\b(?:you(?:'re| are)? (?:going to|gonna|will|should|deserve to|ought to)|i hope you|hope you|may you|wish you would) (?:\w+ )?(?:die|be killed|get killed|be shot|get shot|be raped|get raped|get cancer|suffer|burn in hell|rot in hell|drown|be hanged|hang)\b/g,
  },
  {
    type: "self_harm_incitement",
    weight: 0.95,
    re: /\b(?:kill|hang|shoot|off|end) (?:yo)?urself\b|\bkys\b|\bgo (?:and )?die\b/g,
  },
  {
    type: "insult",
    weight: 0.7,
    re: /\b(?:you(?:'re| are| r|re)?|ur|u r|your face is|you look like) (?:such |so |a |an |the |just |nothing but |really |truly |absolutely |an absolute |a complete |a total |a fucking |one |the biggest |the most )*(?:stupid|idiot|idiotic|moron|moronic|dumb|dumbass|imbecile|cretin|worthless|pathetic|useless|ugly|fat|disgusting|loser|brainless|clown|trash|garbage|scum|scumbag|freak|creep|failure|pig|parasite|joke|retarded|sad excuse|waste of (?:space|oxygen|air|skin|time)|piece of (?:shit|crap|trash|garbage|work)|mistake|embarrassment|disgrace|ignorant|incompetent|fool|jerk)\b/g,
  },
  {
    type: "insult",
    weight: 0.5,
    re: /\b(?:idiot|moron|imbecile|loser|dumbass|jackass|scumbag|douche(?:bag)?|cretin|halfwit|nitwit|dimwit|numbskull|bonehead|blockhead|dipshit|shithead|dickhead|asshat|twit|pillock|wanker|tosser|git|prat|knobhead|bellend)\b/g,
  },
  {
    type: "harassment",
    weight: 0.6,
    re: /\b(?:shut (?:the \w+ )?up|stfu|go to hell|drop dead|screw you|piss off|eat shit|get lost|bite me|nobody (?:likes|loves|cares about|wants) you|no one (?:likes|loves|cares about|wants) you|i (?:hate|despise|loathe|detest) you|you (?:make me sick|disgust me|should be ashamed))\b/g,
  },
  {
    type: "harassment",
    weight: 0.45,
    re: /\byour (?:mom|mother|mama|momma|dad|father|wife|sister)(?: is| was|'s) (?:so |a )\b|\b(?:so ugly|so fat|so stupid|so dumb) (?:that|even|when)\b/g,
  },
  {
    type: "hate",
    weight: 0.9,
    re: new RegExp(
      `\\b(?:all |those |these |the |filthy |dirty |fucking )?${groups} (?:should|must|need to|ought to|deserve to|are going to|will) (?:all )?(?:die|be killed|be exterminated|be gassed|burn|hang|be hanged|be deported|be shot|be wiped out|go back)\\b|\\b${groups} (?:are|is) (?:all )?(?:subhuman|vermin|animals|parasites|cockroaches|inferior|scum|trash|a disease|a plague|filth|evil|rapists|criminals|terrorists)\\b`,
      "g",
    ),
  },
  {
    type: "hate",
    weight: 0.9,
    re: /\bheil hitler\b|\bsieg heil\b|\bgas the \w+|\b14 ?88\b|\bwhite power\b|\bethnic cleansing now\b/g,
  },
]);
