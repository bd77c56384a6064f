// HTML as retrieval reads it: the text of the page, never its markup, attributes, scripts or styles;
// entities decoded; headings kept as the chunker's heading paths.
import { expect, test } from "bun:test";
import { chunkText } from "#services/knowledge-base/chunk.ts";
import { htmlToText } from "#services/knowledge-base/extract.ts";

test("attribute values are not text, even with a '>' inside them", () => {
  expect(htmlToText(`<p title="a>b">visible</p><img alt="x>y" src="z.png"><a href="/p?q=1>2">link</a>`)).toBe(
    "visible\n\nlink",
  );
});

test("named and numeric entities are decoded", () => {
  expect(
    htmlToText("<p>caf&eacute; &mdash; na&iuml;ve &hellip; a&#x41;&#66;&lt; 32&nbsp;GB &amp; more</p>"),
  ).toBe("café — naïve … aAB< 32 GB & more");
});

test("scripts, styles, comments and navigation are dropped, wherever they are", () => {
  const text = htmlToText(
    `<style>p{color:red}</style><nav>Home | About</nav><p>kept<script>if (a < b) { x = "</p>" }</script></p><!-- <p>hidden</p> --><noscript>enable js</noscript>`,
  );
  expect(text).toBe("kept");
});

test("headings become the chunks' heading paths; page text that looks like a Markdown heading does not", () => {
  const html = `<h1>Equipment <em>guide</em></h1><p>Every engineer gets a laptop.</p>
    <h2>Returns</h2><p># 1 rule: return it</p><pre># not a heading\nreturn()</pre>
    <h2>Costs</h2><table><tr><th>Item</th><th>Price</th></tr><tr><td>Laptop</td><td>900</td></tr></table>`;
  const chunks = chunkText(htmlToText(html), { maxTokens: 50, overlap: 0 });
  expect(chunks.map((c) => c.heading)).toEqual([
    "Equipment guide",
    "Equipment guide > Returns",
    "Equipment guide > Costs",
  ]);
  expect(chunks[1]?.text).toContain("1 rule: return it");
  expect(chunks[1]?.text).toContain("not a heading return()");
  expect(chunks[2]?.text).toBe("Equipment guide > Costs\n\nItem Price Laptop 900");
});
