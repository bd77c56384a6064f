// deploy/: the Kubernetes manifests checked against the Kubernetes API's own schemas (kubernetes-models),
// then against what the platform needs of them; the Dockerfile against what the server loads. No cluster
// and no Docker engine run here, so this is what CI can check.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";

const root = join(import.meta.dir, "..", "..");
const dir = join(root, "deploy", "kubernetes");
const models = {
  "apps/v1 Deployment": Deployment,
  "autoscaling/v2 HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "rbac.authorization.k8s.io/v1 Role": Role,
  "rbac.authorization.k8s.io/v1 RoleBinding": RoleBinding,
  "v1 ConfigMap": ConfigMap,
  "v1 Secret": Secret,
  "v1 Service": Service,
  "v1 ServiceAccount": ServiceAccount,
} as const;

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };

const files = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
const manifests: { file: string; doc: Manifest }[] = files.flatMap((file) =>
  parseAllDocuments(readFileSync(join(dir, file), "utf8"))
    .map((d) => d.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null)
    .map((doc) => ({ file, doc })),
);
const ofKind = <T>(kind: string) =>
  manifests.filter((m) => m.doc.kind === kind).map((m) => m.doc as unknown as T);
const deployments = ofKind<Deployment>("Deployment");

describe("Kubernetes manifests", () => {
  test("every document is valid against the Kubernetes schemas", () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const { file, doc } of manifests) {
      const Model = models[`${doc.apiVersion} ${doc.kind}` as keyof typeof models];
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind}`).toBeDefined();
      expect(() => new Model(doc as never).validate(), `${file}: ${doc.metadata.name}`).not.toThrow();
    }
  });

  test("kustomization lists every manifest but the secret's example", () => {
    const kustomization = parseAllDocuments(readFileSync(join(dir, "kustomization.yaml"), "utf8"))[0]?.toJS();
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => !f.includes("example")).sort());
  });

  test("each gateway is its own Deployment: several replicas, ready on /ready, non-root, secrets from a Secret", () => {
    const services = deployments.map(
      (d) => d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === "SERVICES")?.value,
    );
    expect(services.sort()).toEqual(["dashboard", "filtration", "inference", "orchestration"]);
    for (const d of deployments) {
      const pod = d.spec?.template.spec;
      const container = pod?.containers[0];
      expect(d.spec?.replicas).toBeGreaterThanOrEqual(2);
      expect(container?.readinessProbe?.httpGet?.path).toBe("/ready");
      expect(container?.livenessProbe?.httpGet?.path).toBe("/health");
      expect(pod?.securityContext?.runAsNonRoot).toBe(true);
      expect(container?.envFrom?.some((e) => e.secretRef?.name === "llm-platform-secrets")).toBe(true);
      // No secret value written into a Deployment.
      expect(JSON.stringify(container?.env ?? [])).not.toMatch(
        /DATABASE_URL|JWT_SECRET|ENCRYPTION_KEY|PASSWORD/,
      );
    }
  });

  test("services, the autoscaler and the disruption budgets point at what exists", () => {
    const labelsOf = (d: Deployment) => d.spec?.template.metadata?.labels ?? {};
    const selects = (selector: Record<string, string>) =>
      deployments.filter((d) => Object.entries(selector).every(([k, v]) => labelsOf(d)[k] === v));
    for (const s of ofKind<Service>("Service")) {
      const [target] = selects(s.spec?.selector ?? {});
      expect(target, s.metadata?.name).toBeDefined();
      const portNames = target?.spec?.template.spec?.containers[0]?.ports?.map((p) => p.name);
      for (const port of s.spec?.ports ?? []) expect(portNames).toContain(port.targetPort as string);
    }
    for (const pdb of ofKind<PodDisruptionBudget>("PodDisruptionBudget")) {
      expect(selects(pdb.spec?.selector?.matchLabels ?? {}).length, pdb.metadata?.name).toBe(1);
    }
    const [hpa] = ofKind<HorizontalPodAutoscaler>("HorizontalPodAutoscaler");
    expect(hpa?.spec?.scaleTargetRef.name).toBe("llm-platform-inference");
    expect(deployments.map((d) => d.metadata?.name)).toContain(hpa?.spec?.scaleTargetRef.name);
  });
});

describe("Dockerfile", () => {
  const dockerfile = readFileSync(join(root, "deploy", "Dockerfile"), "utf8");

  test("a Bun base image, the lockfile's production dependencies, a non-root user, the server as command", () => {
    expect(dockerfile).toMatch(/^FROM oven\/bun:\S+/m);
    expect(dockerfile).toContain("bun install --frozen-lockfile --production");
    // Local packages the lockfile points at (overrides' file: stubs) are there before the install.
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      overrides?: Record<string, string>;
    };
    const install = dockerfile.slice(0, dockerfile.indexOf("RUN bun install"));
    for (const target of Object.values(pkg.overrides ?? {}).filter((v) => v.startsWith("file:"))) {
      const folder = target.replace(/^file:\.\//, "").split("/")[0] as string;
      expect(install).toContain(`COPY ${folder} ./${folder}`);
    }
    const user = [...dockerfile.matchAll(/^USER (\S+)/gm)].at(-1)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toBe("root");
    expect(dockerfile).toContain('CMD ["bun", "run", "main.ts"]');
  });

  test("every folder the server and the llama.cpp worker import from is copied into the image", () => {
    const copied = new Set([...dockerfile.matchAll(/^COPY (\w+) \.\/\1$/gm)].map((m) => m[1]));
    const imported = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, "utf8");
      // Relative specifiers and the `#folder/...` aliases of package.json's imports.
      for (const [, spec] of source.matchAll(/from "((?:\.{1,2}|#[\w-]+)\/[^"]+)"/g)) {
        const target = spec?.startsWith("#") ? join(root, spec.slice(1)) : join(file, "..", spec as string);
        imported.add(target.slice(root.length + 1).split("/")[0] as string);
        if (/\.tsx?$/.test(target)) visit(target);
      }
    };
    visit(join(root, "main.ts"));
    visit(join(root, "adapters", "engines", "llama.cpp", "worker.ts"));
    for (const folder of imported) expect(copied.has(folder), folder).toBe(true);
  });
});
