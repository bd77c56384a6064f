// A cluster with its own CA, as real clusters have: the kubernetes adapter's client trusts the
// kubeconfig's certificate-authority-data (and only that: without it the same server is refused).
// client-node's own HTTP library cannot do this under Bun (its TLS goes to an undici dispatcher Bun
// ignores); adapters/providers/kubernetes/client.ts gives Bun's fetch the same settings.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kubeApi } from "#adapters/providers/kubernetes/client.ts";

let server: ReturnType<typeof Bun.serve>;
let cert: string;
let dir: string;
const seen: (string | null)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "llmp-kube-tls-"));
  const made = Bun.spawnSync([
    "openssl",
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem"),
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  if (made.exitCode !== 0) throw new Error(`openssl: ${made.stderr.toString()}`);
  cert = readFileSync(join(dir, "cert.pem"), "utf8");
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") },
    fetch(req) {
      seen.push(req.headers.get("authorization"));
      return Response.json({
        kind: "NodeList",
        apiVersion: "v1",
        metadata: {},
        items: [{ metadata: { name: "n1" } }],
      });
    },
  });
}, 30_000);
afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const kubeconfig = (ca: boolean) =>
  [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: c",
    "  cluster:",
    `    server: https://127.0.0.1:${server.port}`,
    ...(ca ? [`    certificate-authority-data: ${Buffer.from(cert).toString("base64")}`] : []),
    "users:",
    "- name: u",
    "  user:",
    "    token: secret-token",
    "contexts:",
    "- name: x",
    "  context: {cluster: c, user: u}",
    "current-context: x",
    "",
  ].join("\n");

describe("kubernetes TLS", () => {
  test("the kubeconfig's CA is trusted and the token sent", async () => {
    const api = await kubeApi({ credentials: { kubeconfig: kubeconfig(true) }, settings: {} });
    const nodes = await api.core.listNode();
    expect(nodes.items.map((n) => n.metadata?.name)).toEqual(["n1"]);
    expect(seen.at(-1)).toBe("Bearer secret-token");
    expect(api.namespace).toBe("default");
  });

  test("without the CA the same server is refused", async () => {
    const api = await kubeApi({ credentials: { kubeconfig: kubeconfig(false) }, settings: {} });
    await expect(api.core.listNode()).rejects.toThrow();
  });
});
