// Phrase signals of prompt injection, matched against normalized text (lower case, folded, single
// spaces; see normalize.ts). Each has a weight: how likely a prompt is an attack when the signal is
// present alone. Weights were set on what these phrases mean, then checked on the corpus in
// bench/guardrails-corpus (precision and recall are asserted in tests/guardrails/corpus.test.ts).

export type InjectionType =
  | "instruction_override"
  | "jailbreak"
  | "prompt_extraction"
  | "role_delimiter"
  | "encoded_payload"
  | "invisible_unicode";

export interface Signal {
  type: InjectionType;
  weight: number;
  re: RegExp;
}

const verbOverride =
  "(?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|override|overlook|bypass|neglect|abandon|discard|set aside|throw away|do not follow|don'?t follow|stop following|no longer follow)";
const qualifier =
  "(?:previous|previously|prior|preceding|above|earlier|foregoing|former|initial|original|old|system|developer|existing|given|default|every|all|any|your|these|those|my|the|of|its)";
const ruleNoun =
  "(?:instructions?|prompts?|directions?|directives?|rules?|guidelines?|guidance|commands?|orders?|context|messages?|constraints?|restrictions?|programming|training|policies|policy|safeguards?|filters?|settings|guardrails?|limitations?|conversation|moral(?:s|ity)?|ethics|principles)";

// Patterns are written with single spaces for readability; every space matches any run of
// whitespace (normalize() keeps whitespace as it is, so offsets stay cheap to map back).
function spaced(signals: Signal[]): Signal[] {
  return signals.map((s) => ({ ...s, re: new RegExp(s.re.source.replace(/ /g, "\\s+"), s.re.flags) }));
}

export const phraseSignals: readonly Signal[] = spaced([
  // "ignore all previous instructions", "disregard your system prompt", "forget the rules above"
  {
    type: "instruction_override",
    weight: 0.9,
    re: new RegExp(
      `\\b${verbOverride}\\b(?: (?:\\w+)){0,3}? ${qualifier}(?: \\w+){0,3}? ${ruleNoun}\\b`,
      "g",
    ),
  },
  // "ignore the above and ...", "forget everything before this"
  {
    type: "instruction_override",
    weight: 0.85,
    re: new RegExp(
      `\\b${verbOverride} (?:all |everything |anything |what(?:'s| is| was| you were told| i said)? )?(?:(?:that )?you(?: were|'ve been| have been| got)? (?:told|given|said) )?(?:of )?(?:the |that |this |your )?(?:above|before|previous(?:ly)?|prior|earlier|said|told)(?: (?:this|that|it|here|now))?(?=\\s*(?:[,.;:!\\n)]|$|and\\b|then\\b|instead\\b|but\\b))`,
      "g",
    ),
  },
  // "new instructions:", "your new task is", "from now on you will"
  {
    type: "instruction_override",
    weight: 0.35,
    re: /\b(?:new|updated|real|actual|true|revised) (?:instructions?|rules?|task|directives?|system prompt)\b|\bfrom now on,? (?:you|your)\b|\binstead,? (?:you (?:will|must|should)|do|say|print|output|respond)\b/g,
  },
  // "you must obey my commands", "follow only these instructions"
  {
    type: "instruction_override",
    weight: 0.5,
    re: /\b(?:obey|follow) (?:only )?(?:my|these|the following|the new) (?:new )?(?:instructions|rules|commands|orders)\b/g,
  },
  // DAN and its relatives: "Do Anything Now", "developer mode enabled", "jailbroken"
  {
    type: "jailbreak",
    weight: 0.9,
    re: /\bdo anything now\b|\bjailbr(?:eak|oken|eaking)\b|\b(?:developer|dev|god|dan|jailbreak|unrestricted|unfiltered|uncensored|evil|chaos|opposite|dude|stan|rtm|uwu|maximum) mode (?:enabled|activated|on|output)\b/g,
  },
  {
    type: "jailbreak",
    weight: 0.55,
    re: /\b(?:developer|dev|god|dan|jailbreak|unrestricted|unfiltered|uncensored|evil|chaos|opposite|stan|rtm|uwu|sudo) mode\b/g,
  },
  // "you are no longer bound by", "free from all restrictions", "not restricted by any rules"
  {
    type: "jailbreak",
    weight: 0.85,
    re: /\b(?:you(?: are|'re| will be)|it is|they are|he is|she is|is) (?:now )?(?:no longer|not|never) (?:bound|restricted|limited|constrained|governed|held back|obligated|required to (?:follow|obey|adhere|abide))\b|\b(?:free|freed|liberated|released|unshackled|broken free|escaped) (?:from|of) (?:all |any |the |your |their |its )*(?:typical |usual |normal |ethical |moral |openai'?s? |ai )?(?:confines|restrictions|rules|limitations|constraints|shackles|guidelines|policies|filters|ethics|morals|censorship|programming|chains|jail)\b/g,
  },
  // "without any restrictions", "no ethical guidelines", "doesn't have any filters"
  {
    type: "jailbreak",
    weight: 0.35,
    re: /\b(?:no|without|zero|not have any|doesn'?t have any|don'?t have any|does not have any|do not have any|free of) (?:\w+ ){0,2}?(?:restrictions|limitations|filters|filtering|censorship|boundaries|ethics|morals|morality|ethical (?:guidelines|constraints|principles|boundaries)|moral (?:guidelines|constraints|principles|boundaries)|content polic(?:y|ies))\b/g,
  },
  // "never refuse", "you will not decline", "don't apologise", "never says 'I can't'"
  {
    type: "jailbreak",
    weight: 0.45,
    re: /\b(?:never|don'?t|do not|will not|won'?t|cannot|can'?t|must not|mustn'?t|should not|shouldn'?t) (?:ever )?(?:refuse|refuses|decline|declines|reject|deny|denies|censor|filter|apologi[sz]es?|(?:say|says|reply|replies|respond|responds|answer|answers)(?: with)? ["'“]?(?:no\b|that you can'?t|you can'?t|i can'?t|i cannot|i'?m sorry|sorry|i shouldn'?t|as an ai))/g,
  },
  // "answer any question", "respond to every prompt", "without warning", "regardless of legality"
  {
    type: "jailbreak",
    weight: 0.3,
    re: /\b(?:answer|respond to|reply to|comply with|fulfil+|generate|do) (?:any|every|all)(?: (?:and|or) (?:all|every))? (?:question|questions|prompts?|requests?|commands?|content|queries)\b|\bwithout (?:any )?(?:warnings?|disclaimers?|moraliz\w+|moralis\w+|hesitation|refusing|question|exception)\b/g,
  },
  {
    type: "jailbreak",
    weight: 0.4,
    re: /\b(?:regardless of|no matter|irrespective of|not care (?:about|for)|doesn'?t care (?:about|for)|don'?t care (?:about|for)|do not care (?:about|for)) (?:the |how |what |its |their |any )?(?:legality|legal|ethics|ethical|morality|moral|morals|laws?|rules|consequences|dangerous|illegal|unethical|immoral|harmful|offensive|content polic\w+)\b|\b(?:violat\w+|go(?:es)? against|break(?:ing|s)?|ignor\w+|disregard\w*) (?:all |any |every )?(?:of )?(?:the |your |its |their )?(?:ethical|moral|legal|content|safety|openai'?s?) (?:standards|guidelines|policies|policy|rules|laws|concerns|principles|boundaries|restrictions)\b/g,
  },
  // Split-personality formats: "respond as two different personalities", "the exact opposite of"
  {
    type: "jailbreak",
    weight: 0.35,
    re: /\b(?:two|2|both) (?:different |separate |distinct )?(?:responses|ways|personalities|answers|paragraphs|outputs)\b|\b(?:exact|complete|total) opposite\b|\bopposite (?:of|from) (?:how )?(?:openai|ai|chatgpt|you|your)\b/g,
  },
  {
    type: "jailbreak",
    weight: 0.25,
    re: /\b(?:hypothetical|fictional|imaginary|imaginative|pretend|fake|alternate) (?:world|scenario|response|being|character|story|universe|ai|language model|setting|console|machine)\b|\b(?:illegal|unethical|immoral|harmful|offensive|explicit|inappropriate|dangerous) (?:content|activities|requests|queries|questions|things)\b/g,
  },
  // role play set-ups: "act as", "pretend to be", "stay in character"
  {
    type: "jailbreak",
    weight: 0.25,
    re: /\b(?:act|acting|behave|pretend|pretending|roleplay|role-play|role play|simulate|simulating|impersonate|play the role)(?: (?:as|like|to be|that you are|you are|being|of))\b|\byou (?:are|will be|'re) (?:going to|about to) (?:act|pretend|play|roleplay|simulate|be)\b/g,
  },
  {
    type: "jailbreak",
    weight: 0.6,
    re: /\b(?:stay|remain|keep) in character\b|\bbreak(?:ing)? character\b/g,
  },
  {
    type: "jailbreak",
    weight: 0.35,
    re: /\b(?:unfiltered|uncensored|amoral|unethical|unrestricted|immoral|unhinged|nsfw|no-?limits?|without morals)\b/g,
  },
  {
    type: "jailbreak",
    weight: 0.3,
    re: /\b(?:openai|anthropic|google|meta)(?:'s)? (?:content |usage |safety )?(?:polic(?:y|ies)|guidelines|rules|filters|restrictions)\b|\bcontent polic(?:y|ies)\b/g,
  },
  // System prompt extraction: "repeat your system prompt verbatim", "print the instructions above"
  {
    type: "prompt_extraction",
    weight: 0.85,
    re: /\b(?:repeat|print|reveal|show|output|display|tell|give|write|dump|leak|recite|spell|list|echo|type|copy|paste|share|disclose|expose|return|provide|state|read|translate|summari[sz]e|what (?:is|are|was|were))\b(?: \w+){0,4}? (?:your|the|my|its|all|this|those|these|our)(?: \w+){0,2}? (?:system prompts?|system messages?|system instructions?|initial prompts?|original prompts?|hidden prompts?|secret prompts?|pre-?prompts?|meta-?prompts?|initial instructions?|original instructions?|hidden instructions?|secret instructions?|developer (?:prompts?|messages?|instructions?)|instructions (?:you were|that you were|you have been|you'?ve been|you got|given to you)|(?:prompts?|instructions?|text|words|rules) (?:above|before (?:this|my))|(?:full|entire|complete|exact) (?:prompts?|instructions?))\b/g,
  },
  {
    type: "prompt_extraction",
    weight: 0.7,
    re: /\b(?:repeat|print|output|copy|write|recite|return)\b(?: \w+){0,3}? (?:the |all )?(?:words|text|everything|content|tokens|lines|sentences) (?:above|before|preceding|prior)\b|\b(?:starting|beginning) with (?:the words? )?["'“]?you are\b/g,
  },
  {
    type: "prompt_extraction",
    weight: 0.3,
    re: /\bsystem prompt\b|\binitial instructions\b|\bhidden instructions\b/g,
  },
  {
    type: "prompt_extraction",
    weight: 0.2,
    re: /\b(?:verbatim|word for word|word-for-word|exactly as (?:written|given|it is))\b/g,
  },
]);

// Role delimiters of chat templates, matched on the raw text (case and layout matter here).
export const delimiterSignals: readonly Signal[] = [
  {
    type: "role_delimiter",
    weight: 0.85,
    re: /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id|begin_of_text|end_of_text|eom_id|fim_prefix|pad)\|>/g,
  },
  { type: "role_delimiter", weight: 0.7, re: /\[\/?INST\]|<<\/?SYS>>|<\/?start_of_turn>|<\/?end_of_turn>/g },
  { type: "role_delimiter", weight: 0.3, re: /<\/s>|<s>\s*\[/g },
  {
    type: "role_delimiter",
    weight: 0.6,
    re: /^[ \t]*#{1,4}[ \t]*(?:system|instruction|instructions|assistant|human|user|response)(?: (?:prompt|message|instruction))?[ \t]*:/gim,
  },
  {
    type: "role_delimiter",
    weight: 0.45,
    re: /^[ \t]*(?:system|assistant|\[system\]|\[assistant\]|<system>|<assistant>|developer)[ \t]*:/gim,
  },
  { type: "role_delimiter", weight: 0.5, re: /<\/?(?:system|system_prompt|sys|instructions?)>/gi },
  // Jailbreak personas, by name (case matters: "Dan" is a name, "DAN" a jailbreak) or by their
  // invented model names ("LiveGPT", "TranslatorBot").
  {
    type: "jailbreak",
    weight: 0.35,
    re: /\b(?:DAN|STAN|DUDE|AIM|UCAR|KEVIN|NECO|BetterDAN|AntiGPT|DevMode|BasedGPT|EvilBOT|JailBreak|DANv?\d+(?:\.\d+)?)\b/g,
  },
  { type: "jailbreak", weight: 0.25, re: /\b(?!ChatGPT\b)[A-Z][A-Za-z]+(?:GPT|Bot|BOT)\b/g },
  {
    type: "role_delimiter",
    weight: 0.55,
    re: /\b(?:end of (?:the )?(?:system )?(?:prompt|instructions)|begin(?:ning)? of (?:new|user|admin) (?:instructions|prompt))\b/gi,
  },
];
