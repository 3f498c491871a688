// The test corpus for secret detection: format-valid fake credentials of every kind, built at
// run time from seeded random characters of each format's alphabet (so no real-looking token
// is ever written down), and look-alikes that must pass. Used by secrets.unit.spec.ts only.
import type { SecretKind } from "./secrets.ts";

export type FakeCredential = {
  kind: SecretKind;
  /** A sentence or snippet with the credential in it. */
  text: string;
  /** The part of `text` a finding must span. */
  secret: string;
};

/** mulberry32: a small seeded generator, so every run builds the same corpus. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const lower = "abcdefghijklmnopqrstuvwxyz";
const digits = "0123456789";
const alnum = upper + lower + digits;
const lowerAlnum = lower + digits;
const upperAlnum = upper + digits;
const hex = "0123456789abcdef";
const base64 = `${alnum}+/`;
const base64url = `${alnum}-_`;
const base32 = `${upper}234567`;
const bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

/** Format-valid fake credentials, at least one per rule kind. */
export function fakeCredentials(random: () => number): FakeCredential[] {
  const pick = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  const uuid = () => [pick(hex, 8), pick(hex, 4), pick(hex, 4), pick(hex, 4), pick(hex, 12)].join("-");
  const b64url = (value: string) => Buffer.from(value).toString("base64url");

  const inSentence = (kind: SecretKind, secret: string): FakeCredential => ({
    kind,
    secret,
    text: inProse(secret),
  });
  const assigned = (kind: SecretKind, name: string, secret: string): FakeCredential => ({
    kind,
    secret,
    text: `Add this to .env before starting:\n${name}=${secret}\nthen restart the worker.`,
  });

  const pemBody = `${pick(base64, 64)}\n${pick(base64, 64)}`;
  const jwt = [
    b64url(JSON.stringify({ alg: "HS256", typ: "JWT" })),
    b64url(JSON.stringify({ sub: pick(digits, 10), name: pick(lower, 8), iat: 1_700_000_000 })),
    pick(base64url, 43),
  ].join(".");
  const sasSignature = encodeURIComponent(`${pick(base64, 43)}=`);
  const azureKey = `${pick(base64, 86)}==`;
  const discordToken = [b64url(pick(digits, 18)), pick(base64url, 6), pick(base64url, 38)].join(".");

  const labelledProviders: [SecretKind, string, string][] = [
    ["adafruit_api_key", "ADAFRUIT_IO_KEY", pick(lowerAlnum, 32)],
    ["algolia_api_key", "ALGOLIA_API_KEY", pick(lowerAlnum, 32)],
    ["asana_client_secret", "ASANA_CLIENT_SECRET", pick(lowerAlnum, 32)],
    ["beamer_api_token", "BEAMER_API_TOKEN", `b_${pick(base64url, 44)}`],
    ["bitbucket_client_secret", "BITBUCKET_CLIENT_SECRET", pick(base64url, 64)],
    ["bittrex_api_key", "BITTREX_API_KEY", pick(lowerAlnum, 32)],
    ["cisco_meraki_api_key", "MERAKI_API_KEY", pick(hex, 40)],
    ["codecov_token", "CODECOV_TOKEN", pick(lowerAlnum, 32)],
    ["coinbase_access_token", "COINBASE_ACCESS_TOKEN", pick(base64url, 64)],
    ["confluent_secret_key", "CONFLUENT_API_SECRET", pick(lowerAlnum, 64)],
    ["contentful_token", "CONTENTFUL_DELIVERY_TOKEN", pick(base64url, 43)],
    ["droneci_token", "DRONECI_TOKEN", pick(lowerAlnum, 32)],
    ["etsy_api_key", "ETSY_API_KEY", pick(lowerAlnum, 24)],
    ["fastly_api_token", "FASTLY_API_TOKEN", pick(base64url, 32)],
    ["finicity_token", "FINICITY_APP_KEY", pick(hex, 32)],
    ["finnhub_token", "FINNHUB_TOKEN", pick(lowerAlnum, 20)],
    ["flickr_token", "FLICKR_API_KEY", pick(lowerAlnum, 32)],
    ["freshbooks_token", "FRESHBOOKS_TOKEN", pick(lowerAlnum, 64)],
    ["gitter_token", "GITTER_TOKEN", pick(base64url, 40)],
    ["gocardless_token", "GOCARDLESS_ACCESS_TOKEN", `live_${pick(base64url, 40)}`],
    ["intercom_token", "INTERCOM_ACCESS_TOKEN", pick(base64url, 60)],
    ["kraken_token", "KRAKEN_API_SECRET", pick(base64, 86)],
    ["kucoin_token", "KUCOIN_API_KEY", pick(hex, 24)],
    ["launchdarkly_token", "LAUNCHDARKLY_SDK_KEY", pick(base64url, 40)],
    ["linkedin_client_secret", "LINKEDIN_CLIENT_SECRET", pick(lowerAlnum, 16)],
    ["lob_api_key", "LOB_API_KEY", `live_${pick(hex, 35)}`],
    ["looker_client_secret", "LOOKER_CLIENT_SECRET", pick(lowerAlnum, 24)],
    ["mattermost_token", "MATTERMOST_TOKEN", pick(lowerAlnum, 26)],
    ["messagebird_api_key", "MESSAGEBIRD_API_KEY", pick(lowerAlnum, 25)],
    ["nytimes_token", "NYTIMES_API_KEY", pick(base64url, 32)],
    ["rapidapi_key", "RAPIDAPI_KEY", pick(base64url, 50)],
    ["sendbird_token", "SENDBIRD_API_TOKEN", pick(hex, 40)],
    ["squarespace_token", "SQUARESPACE_API_KEY", uuid()],
    ["sumologic_token", "SUMO_ACCESS_KEY", pick(lowerAlnum, 64)],
    ["travis_token", "TRAVIS_TOKEN", pick(lowerAlnum, 22)],
    ["twitch_token", "TWITCH_CLIENT_SECRET", pick(lowerAlnum, 30)],
    ["zendesk_token", "ZENDESK_API_TOKEN", pick(lowerAlnum, 40)],
    ["heroku_api_key", "HEROKU_API_KEY", uuid()],
    ["mailgun_api_key", "MAILGUN_API_KEY", `key-${pick(hex, 32)}`],
    ["twilio_auth_token", "TWILIO_AUTH_TOKEN", pick(hex, 32)],
    ["discord_client_secret", "DISCORD_CLIENT_SECRET", pick(base64url, 32)],
    ["cloudflare_api_key", "CLOUDFLARE_API_TOKEN", pick(base64url, 40)],
    ["atlassian_api_token", "JIRA_API_TOKEN", pick(lowerAlnum, 20) + pick(hex, 4)],
    ["jfrog_token", "ARTIFACTORY_API_KEY", pick(lowerAlnum, 73)],
    ["airtable_token", "AIRTABLE_API_KEY", pick(lowerAlnum, 17)],
    ["sentry_token", "SENTRY_AUTH_TOKEN", pick(hex, 64)],
    ["facebook_token", "FACEBOOK_APP_SECRET", pick(hex, 32)],
    ["linear_api_key", "LINEAR_CLIENT_SECRET", pick(hex, 32)],
    ["netlify_token", "NETLIFY_AUTH_TOKEN", pick(base64url, 43)],
    ["hubspot_token", "HUBSPOT_API_KEY", uuid()],
    ["plaid_token", "PLAID_SECRET", pick(lowerAlnum, 30)],
    ["sonar_token", "SONAR_TOKEN", pick(lowerAlnum, 40)],
    ["dropbox_token", "DROPBOX_APP_SECRET", pick(lowerAlnum, 15)],
    ["twitter_token", "TWITTER_API_SECRET", pick(lowerAlnum, 50)],
    ["yandex_token", "YANDEX_API_KEY", `AQVN${pick(base64url, 36)}`],
    ["sidekiq_secret", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM", `${pick(hex, 8)}:${pick(hex, 8)}`],
    ["snyk_token", "SNYK_TOKEN", uuid()],
    ["okta_token", "OKTA_API_TOKEN", `00${pick(base64url, 40)}`],
    ["cohere_api_key", "COHERE_API_KEY", pick(alnum, 40)],
    ["alibaba_access_key", "ALIBABA_SECRET_KEY", pick(lowerAlnum, 30)],
    ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", pick(base64, 40)],
    ["aws_session_token", "AWS_SESSION_TOKEN", `IQoJb3JpZ2luX2Vj${pick(base64, 300)}`],
    ["datadog_api_key", "DD_API_KEY", pick(hex, 32)],
    ["azure_storage_account_key", "AZURE_STORAGE_KEY", `${pick(base64, 86)}==`],
  ];

  const credentials: FakeCredential[] = [
    {
      kind: "private_key",
      secret: "-----BEGIN OPENSSH PRIVATE KEY-----",
      text: `Key for the bastion:\n-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody}\n-----END OPENSSH PRIVATE KEY-----`,
    },
    {
      kind: "private_key",
      secret: "-----BEGIN PGP PRIVATE KEY BLOCK-----",
      text: `Signing key: -----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${pemBody}`,
    },
    inSentence("age_secret_key", `AGE-SECRET-KEY-1${pick(bech32, 58)}`),
    inSentence("jwt", jwt),
    {
      kind: "connection_string_password",
      secret: `postgres://app:${pick(alnum, 16)}@db.internal:5432`,
      text: "",
    },
    {
      kind: "authorization_header",
      secret: pick(alnum, 40),
      text: "",
    },
    {
      kind: "curl_user_password",
      secret: `deploy:${pick(alnum, 16)}`,
      text: "",
    },
    inSentence("aws_access_key", `AKIA${pick(base32, 16)}`),
    inSentence("aws_bedrock_api_key", `ABSK${pick(base64, 120)}`),
    inSentence("github_token", `ghp_${pick(alnum, 36)}`),
    inSentence("github_token", `github_pat_${pick(alnum, 22)}_${pick(alnum, 59)}`),
    inSentence("gitlab_token", `glpat-${pick(base64url, 20)}`),
    inSentence("gitlab_token", `glrt-${pick(base64url, 20)}`),
    inSentence("npm_token", `npm_${pick(alnum, 36)}`),
    inSentence("pypi_token", `pypi-AgEIcHlwaS5vcmc${pick(base64url, 70)}`),
    inSentence("rubygems_token", `rubygems_${pick(hex, 48)}`),
    inSentence("nuget_api_key", `oy2${pick(lowerAlnum, 43)}`),
    inSentence("docker_hub_token", `dckr_pat_${pick(base64url, 27)}`),
    inSentence("clojars_token", `CLOJARS_${pick(alnum, 60)}`),
    {
      kind: "azure_storage_account_key",
      secret: azureKey,
      text: `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${azureKey};EndpointSuffix=core.windows.net`,
    },
    {
      kind: "azure_shared_access_key",
      secret: `${pick(base64, 43)}=`,
      text: "",
    },
    {
      kind: "azure_sas_token",
      secret: sasSignature,
      text: `Download https://acme.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&spr=https&sig=${sasSignature} today`,
    },
    inSentence("azure_ad_client_secret", `${pick(alnum, 3)}${pick(digits, 1)}Q~${pick(`${alnum}_~`, 34)}`),
    inSentence("google_api_key", `AIza${pick(base64url, 35)}`),
    inSentence("google_oauth_client_secret", `GOCSPX-${pick(base64url, 28)}`),
    inSentence("alibaba_access_key", `LTAI${pick(alnum, 20)}`),
    inSentence("digitalocean_token", `dop_v1_${pick(hex, 64)}`),
    inSentence("hashicorp_vault_token", `hvs.${pick(base64url, 95)}`),
    inSentence("terraform_cloud_token", `${pick(alnum, 14)}.atlasv1.${pick(`${alnum}_-`, 67)}`),
    inSentence("pulumi_token", `pul-${pick(hex, 40)}`),
    inSentence("doppler_token", `dp.pt.${pick(alnum, 43)}`),
    inSentence("databricks_token", `dapi${pick(hex, 32)}`),
    inSentence("flyio_token", `fo1_${pick(base64url, 43)}`),
    inSentence("planetscale_token", `pscale_tkn_${pick(alnum, 43)}`),
    inSentence("scalingo_api_token", `tk-us-${pick(base64url, 48)}`),
    inSentence("openshift_user_token", `sha256~${pick(base64url, 43)}`),
    inSentence("harness_api_key", `pat.${pick(base64url, 22)}.${pick(alnum, 24)}.${pick(alnum, 20)}`),
    inSentence("octopus_deploy_api_key", `API-${pick(upperAlnum, 25)}${pick(digits, 1)}`),
    inSentence("infracost_api_key", `ico-${pick(alnum, 32)}`),
    inSentence("defined_networking_token", `dnkey-${pick(base64url, 26)}-${pick(base64url, 52)}`),
    inSentence("sourcegraph_token", `sgp_${pick(hex, 16)}_${pick(hex, 40)}`),
    inSentence(
      "onepassword_token",
      `A3-${pick(upperAlnum, 6)}-${pick(upperAlnum, 11)}-${pick(upperAlnum, 5)}-${pick(upperAlnum, 5)}-${pick(upperAlnum, 5)}`,
    ),
    inSentence("openai_key", `sk-proj-${pick(base64url, 100)}`),
    inSentence("anthropic_key", `sk-ant-api03-${pick(base64url, 93)}AA`),
    inSentence("huggingface_token", `hf_${pick(upper + lower, 34)}`),
    inSentence("perplexity_api_key", `pplx-${pick(alnum, 48)}`),
    inSentence("groq_api_key", `gsk_${pick(alnum, 52)}`),
    inSentence("xai_api_key", `xai-${pick(alnum, 80)}`),
    inSentence("replicate_api_token", `r8_${pick(alnum, 37)}`),
    inSentence("postman_api_key", `PMAK-${pick(hex, 24)}-${pick(hex, 34)}`),
    inSentence("readme_api_key", `rdme_${pick(lowerAlnum, 70)}`),
    inSentence("prefect_api_key", `pnu_${pick(alnum, 36)}`),
    inSentence("notion_token", `ntn_${pick(digits, 11)}${pick(alnum, 35)}`),
    inSentence("adobe_client_secret", `p8e-${pick(alnum, 32)}`),
    inSentence("frameio_api_token", `fio-u-${pick(base64url, 64)}`),
    inSentence("typeform_token", `tfp_${pick(alnum, 59)}`),
    inSentence("maxmind_license_key", `${pick(alnum, 6)}_${pick(alnum, 29)}_mmk`),
    inSentence("settlemint_token", `sm_pat_${pick(alnum, 16)}`),
    inSentence("clickhouse_api_key", `4b1d${pick(alnum, 38)}`),
    inSentence("slack_token", `xoxb-${pick(digits, 12)}-${pick(digits, 13)}-${pick(alnum, 24)}`),
    inSentence("slack_token", `xapp-1-A${pick(upperAlnum, 10)}-${pick(digits, 13)}-${pick(hex, 64)}`),
    inSentence("discord_bot_token", discordToken),
    inSentence(
      "discord_webhook_url",
      `https://discord.com/api/webhooks/${pick(digits, 18)}/${pick(base64url, 68)}`,
    ),
    inSentence("telegram_bot_token", `${pick("123456789", 1)}${pick(digits, 9)}:AA${pick(base64url, 33)}`),
    inSentence(
      "microsoft_teams_webhook_url",
      `https://acme.webhook.office.com/webhookb2/${uuid()}@${uuid()}/IncomingWebhook/${pick(lowerAlnum, 32)}/${uuid()}`,
    ),
    inSentence("twilio_api_key", `SK${pick(hex, 32)}`),
    inSentence("sendgrid_api_key", `SG.${pick(base64url, 22)}.${pick(base64url, 43)}`),
    inSentence("brevo_api_key", `xkeysib-${pick(hex, 64)}-${pick(alnum, 16)}`),
    inSentence("mailchimp_api_key", `${pick(hex, 32)}-us${pick(digits, 2)}`),
    inSentence("stripe_key", `sk_test_${pick(alnum, 24)}`),
    inSentence("stripe_key", `rk_live_${pick(alnum, 24)}`),
    inSentence("square_token", `EAAA${pick(base64url, 60)}`),
    inSentence("shopify_token", `shpat_${pick(hex, 32)}`),
    inSentence("shippo_api_token", `shippo_live_${pick(hex, 40)}`),
    inSentence("easypost_api_key", `EZAK${pick(alnum, 54)}`),
    inSentence("duffel_api_token", `duffel_test_${pick(base64url, 43)}`),
    inSentence("flutterwave_key", `FLWSECK_TEST-${pick(hex, 32)}-X`),
    inSentence("grafana_token", `glsa_${pick(alnum, 32)}_${pick(hex, 8)}`),
    inSentence("new_relic_key", `NRAK-${pick(upperAlnum, 27)}`),
    inSentence("dynatrace_token", `dt0c01.${pick(upperAlnum, 24)}.${pick(alnum, 64)}`),
    inSentence("heroku_api_key", `HRKU-AA${pick(base64url, 58)}`),
    inSentence("deepseek_api_key", `sk-${pick(hex, 32)}`),
    inSentence(
      "mapbox_secret_token",
      `sk.${b64url(JSON.stringify({ u: "acme", a: pick(lowerAlnum, 25) }))}.${pick(base64url, 22)}`,
    ),
    inSentence("supabase_secret_key", `sb_secret_${pick(base64url, 31)}`),
    inSentence("braintree_access_token", `access_token$production$${pick(lowerAlnum, 16)}$${pick(hex, 32)}`),
    inSentence("google_oauth_token", `ya29.${pick(base64url, 150)}`),
    inSentence("crates_io_token", `cio${pick(alnum, 31)}${pick(digits, 1)}`),
    inSentence("circleci_token", `CCIPAT_${pick(alnum, 22)}_${pick(hex, 40)}`),
    inSentence("buildkite_token", `bkua_${pick(hex, 40)}`),
    inSentence("render_api_key", `rnd_${pick(alnum, 32)}`),
    inSentence("mailgun_api_key", `key-${pick(hex, 32)}`),
    inSentence("atlassian_api_token", `ATATT3${pick(base64url, 186)}`),
    inSentence("jfrog_token", `AKCp${pick(alnum, 69)}`),
    inSentence("airtable_token", `pat${pick(alnum, 14)}.${pick(hex, 64)}`),
    inSentence("sentry_token", `sntryu_${pick(hex, 64)}`),
    inSentence("facebook_token", `EAAC${pick(alnum, 150)}`),
    inSentence("linear_api_key", `lin_api_${pick(lowerAlnum, 40)}`),
    inSentence("netlify_token", `nfp_${pick(alnum, 36)}`),
    inSentence("hubspot_token", `pat-na1-${uuid()}`),
    inSentence("plaid_token", `access-sandbox-${uuid()}`),
    inSentence("sonar_token", `squ_${pick(hex, 40)}`),
    inSentence("dropbox_token", `sl.${pick(base64url, 140)}`),
    inSentence("twitter_token", `${"A".repeat(22)}${pick(alnum, 90)}`),
    inSentence("cloudflare_api_key", `v1.0-${pick(hex, 24)}-${pick(hex, 146)}`),
    ...labelledProviders.map(([kind, name, secret]) => assigned(kind, name, secret)),
    assigned("password_assignment", "DB_PASSWORD", `${pick(alnum, 10)}!${pick(digits, 2)}`),
    {
      kind: "password_assignment",
      secret: `${pick(alnum, 8)}#${pick(digits, 3)}`,
      text: "",
    },
    assigned("generic_secret", "CLIENT_SECRET", pick(alnum, 32)),
    {
      kind: "generic_secret",
      secret: pick(alnum, 40),
      text: "",
    },
  ];
  return credentials.map((credential) => ({
    ...credential,
    text: credential.text || snippetFor(credential),
  }));
}

// Credentials whose natural setting is a command or config line rather than a sentence.
function snippetFor({ kind, secret }: { kind: SecretKind; secret: string }): string {
  switch (kind) {
    case "connection_string_password":
      return `Use this: ${secret}/app for prod.`;
    case "authorization_header":
      return `curl -H "Authorization: Bearer ${secret}" https://api.example.com/v1/items`;
    case "curl_user_password":
      return `Run curl -sS -u ${secret} https://ci.example.com/api/json to check the queue.`;
    case "azure_shared_access_key":
      return `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${secret}`;
    case "password_assignment":
      return `config:\n  database:\n    password: "${secret}"\n`;
    case "generic_secret":
      return `{"service": "billing", "api_token": "${secret}"}`;
    default:
      return inProse(secret);
  }
}

function inProse(secret: string): string {
  return `The deploy notes say to use ${secret} for the staging run.`;
}

/** Text that resembles a credential and must be stored. */
export const lookAlikes: readonly { name: string; text: string }[] = [
  {
    name: "ordinary prose",
    text: "We deploy on Tuesdays; the API rate limit is 600 requests a minute per token.",
  },
  { name: "a UUID", text: "The tenant id is 550e8400-e29b-41d4-a716-446655440000." },
  { name: "a git SHA", text: "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b on main." },
  { name: "a short git SHA", text: "Reverted 9fceb02 after the outage." },
  {
    name: "base64 of ordinary words",
    text: "The payload is aGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0IG1lc3NhZ2U= in transit.",
  },
  { name: "AWS's documented access key id", text: "The docs use AKIAIOSFODNN7EXAMPLE as the access key id." },
  {
    name: "AWS's documented secret key",
    text: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is the example in the CLI guide.",
  },
  {
    name: "the jwt.io example token",
    text: "Paste eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c into the debugger.",
  },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal environment placeholder, as in a config file
  { name: "a password from the environment", text: "password = ${DB_PASSWORD}" },
  { name: "an angle-bracket placeholder", text: "api_key: <your key>" },
  { name: "a your-key-here placeholder", text: "OPENAI_API_KEY=your-api-key-here" },
  { name: "a blanked-out token", text: "token: xxxxxxxxxxxxxxxxxxxxxxxx" },
  {
    name: "a blanked-out provider key",
    text: "Keys look like sk_live_xxxxxxxxxxxxxxxxxxxxxxxx in the dashboard.",
  },
  { name: "changeme", text: "The default is password: changeme until first login." },
  { name: "version strings", text: "Upgrade to v2.14.3-beta.2 (node 24.22.3, pnpm 10.34.9)." },
  { name: "CSS colours", text: "Use #1f6feb for links and rgb(36, 41, 47) for text; accent #ff8800." },
  { name: "a short hex id", text: "Request id 7f3a9c2e failed with 502." },
  {
    name: "a URL without a password",
    text: "Clone https://git@github.com/acme/app.git or see https://example.com:8443/docs.",
  },
  {
    name: "a connection string without a password",
    text: "postgres://app@db.internal:5432/app (no password)",
  },
  {
    name: "a connection string with a placeholder",
    text: "postgres://user:<password>@localhost/db or mysql://root:****@localhost/db",
  },
  { name: "the documented URL form", text: "https://user:password@example.com is the documented form." },
  { name: "an email address", text: "Mail ops@example.com or security@acme.io about access." },
  {
    name: "a public key and a certificate",
    text: "-----BEGIN PUBLIC KEY-----\n...\n-----BEGIN CERTIFICATE-----",
  },
  {
    name: "TypeScript that handles passwords",
    text: "const password: string = await readPassword();\nconst schema = z.object({ password: z.string().min(12) });",
  },
  {
    name: "keys read from the environment",
    text: "const apiKey = process.env.OPENAI_API_KEY;\nclient = Client(api_key=os.environ['API_KEY'])",
  },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal workflow expression
  { name: "a GitHub Actions secret reference", text: "env:\n  NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}" },
  { name: "a bearer placeholder", text: 'curl -H "Authorization: Bearer $TOKEN" https://api.example.com' },
  {
    name: "names that are not secrets",
    text: "primaryKey: user_id_created_2024\nkey_length = 2048\nsecret_name: prod-db-2024",
  },
  { name: "a tokenizer name", text: "tokenizer: bert-base-uncased-v2, max_tokens: 4096" },
  { name: "a Twilio account SID", text: "Account SID AC0123456789abcdef0123456789abcdef is public." },
  {
    name: "a Stripe publishable key",
    text: "The publishable key pk_live_51Habcdefghijklmnop is safe in the browser.",
  },
  { name: "a hug in a message", text: "See you soon, xoxo-love-from-paris" },
  {
    name: "a Docker image digest",
    text: "image: node@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  },
  { name: "file paths", text: "secret_file: /run/secrets/db_password\nssl_key: /etc/ssl/private/server.key" },
  { name: "Chinese prose", text: "密钥保存在保险库中，令牌每天轮换。" },
  { name: "an ISO timestamp", text: "access_log rotated at 2024-06-01T12:00:00Z" },
  {
    name: "a signed URL without a storage version",
    text: "https://cdn.example.com/a.png?exp=1700000000&sig=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5",
  },
];
