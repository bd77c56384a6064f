import { Layout } from "./layout.tsx";

export function HomePage({ email, role, csrf }: { email: string; role: string; csrf: string }) {
  return (
    <Layout title="Overview" user={email} csrf={csrf}>
      <section class="card">
        <h1>Overview</h1>
        <p>
          Signed in as <strong safe>{email}</strong> with the role <strong safe>{role}</strong>.
        </p>
      </section>
    </Layout>
  );
}
