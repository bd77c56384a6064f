import { Layout } from "./layout.tsx";

const titles: Record<number, string> = {
  400: "That request was not understood",
  403: "You do not have permission for this",
  404: "Not found",
  409: "That cannot be done now",
  413: "Too large",
  429: "Too many requests",
};

/** A problem answered to a browser: what happened, in words, and a way back. */
export const errorPage = (props: { status: number; message: string; csrf: string }): string =>
  String(<ErrorPage {...props} />);

function ErrorPage({ status, message, csrf }: { status: number; message: string; csrf: string }) {
  const title = titles[status] ?? "Something went wrong";
  return (
    <Layout title={title} csrf={csrf}>
      <section class="card narrow">
        <h1 safe>{title}</h1>
        <p safe>{message}</p>
        <p>
          <a href="/">Back to the overview</a>
        </p>
      </section>
    </Layout>
  );
}
