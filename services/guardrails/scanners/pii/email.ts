import { type Detector, piiFinding } from "./types.ts";

// Local part and domain after RFC 5321's practical subset (what mail providers accept); the TLD must
// be alphabetic so "user@10.0.0.1"-like strings and "a@b" decorators (Python, npm scopes) stay out.
const EMAIL =
  /(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-]|\.[A-Za-z0-9])/g;

export const detectEmails: Detector = (text, out) => {
  if (text.indexOf("@") < 0) return;
  EMAIL.lastIndex = 0;
  for (let m = EMAIL.exec(text); m !== null; m = EMAIL.exec(text)) {
    out.push(piiFinding("email", 0.95, m.index, m.index + m[0].length));
  }
};
