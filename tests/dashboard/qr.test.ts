// The two-factor QR code decodes, with an independent decoder (jsQR), to the exact otpauth:// URL.
import { expect, test } from "bun:test";
import jsQR from "jsqr";
import { qrDataUrl } from "#routes/dashboard/account/totp/_qr.ts";

/** Paints the SVG's unit squares ("M x,y h10v10h-10z") into RGBA pixels, white elsewhere. */
function rasterize(svg: string): { data: Uint8ClampedArray; size: number } {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const data = new Uint8ClampedArray(size * size * 4).fill(255);
  for (const [, x, y] of svg.matchAll(/M(\d+),(\d+)h10v10h-10z/g)) {
    for (let dy = 0; dy < 10; dy++) {
      for (let dx = 0; dx < 10; dx++) {
        const at = ((Number(y) + dy) * size + Number(x) + dx) * 4;
        data.fill(0, at, at + 3);
      }
    }
  }
  return { data, size };
}

test("the QR code of a two-factor set-up decodes to its otpauth URL", async () => {
  const url =
    "otpauth://totp/LLM%20Platform:admin%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=LLM%20Platform";
  const dataUrl = await qrDataUrl(url);
  expect(dataUrl).toStartWith("data:image/svg+xml;base64,");
  const svg = Buffer.from(dataUrl.split(",")[1] as string, "base64").toString();
  const { data, size } = rasterize(svg);
  expect(jsQR(data, size, size)?.data).toBe(url);
});
