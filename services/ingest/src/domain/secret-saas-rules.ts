// Provider credentials recognised by a prefix and a length: AI services, messaging, payments,
// observability and other hosted services. Ported as data from gitleaks' default rules
// (github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT licence), with its entropy floors,
// plus formats it lacks (Groq, xAI, Replicate, DeepSeek, Mapbox secret, Supabase and Braintree
// keys) and unlabelled Telegram and Discord bot tokens, whose formats are distinctive alone.
import type { SecretRule } from "./secret-rule.ts";

const hasDigit = (value: string) => /\d/.test(value);

// A Discord bot token starts with the bot's numeric id in base64; decoding it is what tells a
// token from any three dotted identifiers of the same lengths.
function startsWithBase64Id(value: string): boolean {
  const id = Buffer.from(value.slice(0, value.indexOf(".")), "base64url").toString("latin1");
  return /^\d{15,21}$/.test(id);
}

export const aiAndDeveloperServiceRules = [
  {
    kind: "openai_key",
    description: "an OpenAI API key",
    // Project, service-account and admin keys; classic keys carry the "T3BlbkFJ" marker or are
    // exactly 48 alphanumerics after "sk-".
    pattern:
      /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,400}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-[A-Za-z0-9]{48}\b/g,
    keywords: ["sk-"],
    minEntropy: 3,
  },
  {
    kind: "anthropic_key",
    description: "an Anthropic API key",
    pattern: /\bsk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_-]{40,400}/g,
    keywords: ["sk-ant-"],
    minEntropy: 3,
  },
  {
    kind: "deepseek_api_key",
    description: "a DeepSeek API key",
    pattern: /\bsk-[a-f0-9]{32}\b/g,
    keywords: ["sk-"],
    minEntropy: 3,
  },
  {
    kind: "huggingface_token",
    description: "a Hugging Face access token",
    pattern: /\b(?:hf|api_org)_[A-Za-z]{34}\b/g,
    keywords: ["hf_", "api_org_"],
    minEntropy: 2,
  },
  {
    kind: "perplexity_api_key",
    description: "a Perplexity API key",
    pattern: /\bpplx-[A-Za-z0-9]{48}\b/g,
    keywords: ["pplx-"],
    minEntropy: 4,
  },
  {
    kind: "groq_api_key",
    description: "a Groq API key",
    pattern: /\bgsk_[A-Za-z0-9]{52}\b/g,
    keywords: ["gsk_"],
    minEntropy: 4,
  },
  {
    kind: "xai_api_key",
    description: "an xAI API key",
    pattern: /\bxai-[A-Za-z0-9]{80}\b/g,
    keywords: ["xai-"],
    minEntropy: 4,
  },
  {
    kind: "replicate_api_token",
    description: "a Replicate API token",
    pattern: /\br8_[A-Za-z0-9]{37}\b/g,
    keywords: ["r8_"],
    minEntropy: 3.5,
  },
  {
    kind: "postman_api_key",
    description: "a Postman API key",
    pattern: /\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b/g,
    keywords: ["pmak-"],
    minEntropy: 3,
  },
  {
    kind: "readme_api_key",
    description: "a ReadMe API key",
    pattern: /\brdme_[a-z0-9]{70}\b/g,
    keywords: ["rdme_"],
    minEntropy: 2,
  },
  {
    kind: "prefect_api_key",
    description: "a Prefect API key",
    pattern: /\bpnu_[A-Za-z0-9]{36}\b/g,
    keywords: ["pnu_"],
    minEntropy: 2,
  },
  {
    kind: "notion_token",
    description: "a Notion integration token",
    pattern: /\b(?:ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b/g,
    keywords: ["ntn_", "secret_"],
    minEntropy: 4,
  },
  {
    kind: "mapbox_secret_token",
    description: "a Mapbox secret access token",
    pattern: /\bsk\.eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{20,100}(?![\w-])/g,
    keywords: ["sk.eyj"],
    minEntropy: 3.5,
  },
  {
    kind: "supabase_secret_key",
    description: "a Supabase secret API key",
    pattern: /\bsb_secret_[A-Za-z0-9_-]{20,64}(?![\w-])/g,
    keywords: ["sb_secret_"],
    minEntropy: 3,
  },
  {
    kind: "adobe_client_secret",
    description: "an Adobe client secret",
    pattern: /\bp8e-[A-Za-z0-9]{32}\b/g,
    keywords: ["p8e-"],
    minEntropy: 2,
  },
  {
    kind: "frameio_api_token",
    description: "a Frame.io API token",
    pattern: /\bfio-u-[A-Za-z0-9_=-]{64}(?![\w=-])/g,
    keywords: ["fio-u-"],
  },
  {
    kind: "typeform_token",
    description: "a Typeform personal access token",
    pattern: /\btfp_[A-Za-z0-9_.=-]{58}[A-Za-z0-9_=-](?![\w.=-])/g,
    keywords: ["tfp_"],
    minEntropy: 3,
  },
  {
    kind: "maxmind_license_key",
    description: "a MaxMind license key",
    pattern: /\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b/g,
    keywords: ["_mmk"],
    minEntropy: 4,
  },
  {
    kind: "settlemint_token",
    description: "a SettleMint access token",
    pattern: /\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b/g,
    keywords: ["sm_aat_", "sm_pat_", "sm_sat_"],
    minEntropy: 3,
  },
  {
    kind: "clickhouse_api_key",
    description: "a ClickHouse Cloud API secret",
    pattern: /\b4b1d[A-Za-z0-9]{38}\b/g,
    keywords: ["4b1d"],
    minEntropy: 3,
  },
] as const satisfies readonly SecretRule[];

export const messagingAndCommerceRules = [
  {
    kind: "slack_token",
    description: "a Slack token or webhook",
    pattern:
      /\b(?:xoxe\.xox[bp]-\d-[A-Za-z0-9]{163,166}|xox[abeprs]-[A-Za-z0-9-]{10,250}|xoxo-\d+-\d+-\d+-[a-fA-F0-9]+|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+)|(?:https?:\/\/)?hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{20,100}/g,
    keywords: ["xox", "xapp-", "hooks.slack.com"],
    // Every Slack token carries numeric workspace or user ids.
    allow: ({ value }) => !hasDigit(value),
  },
  {
    kind: "discord_bot_token",
    description: "a Discord bot token",
    pattern: /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![\w-])/g,
    minEntropy: 3.5,
    // Three dotted identifiers of the same lengths (`MyServiceFactoryInstance.method.…`) have
    // no digits; a token has them, or at least starts with a bot id in base64.
    allow: ({ value }) => !hasDigit(value) && !startsWithBase64Id(value),
  },
  {
    kind: "discord_webhook_url",
    description: "a Discord webhook URL",
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{17,20}\/[\w-]{60,80}/g,
    keywords: ["discord"],
  },
  {
    kind: "telegram_bot_token",
    description: "a Telegram bot token",
    pattern: /\b\d{5,16}:A[A-Za-z0-9_-]{34}(?![\w-])/g,
    keywords: [":a"],
    minEntropy: 3.5,
  },
  {
    kind: "microsoft_teams_webhook_url",
    description: "a Microsoft Teams incoming webhook URL",
    pattern:
      /https:\/\/[a-z0-9-]+\.webhook\.office\.com\/webhookb2\/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}\/IncomingWebhook\/[a-z0-9]{32}\/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}/g,
    keywords: ["webhook.office.com"],
  },
  {
    kind: "twilio_api_key",
    description: "a Twilio API key",
    pattern: /\bSK[0-9a-fA-F]{32}\b/g,
    keywords: ["sk"],
    minEntropy: 3,
  },
  {
    kind: "sendgrid_api_key",
    description: "a SendGrid API key",
    pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![\w-])/g,
    keywords: ["sg."],
    minEntropy: 2,
  },
  {
    kind: "brevo_api_key",
    description: "a Brevo (Sendinblue) API or SMTP key",
    pattern: /\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b/g,
    keywords: ["xkeysib-", "xsmtpsib-"],
    minEntropy: 2,
  },
  {
    kind: "mailchimp_api_key",
    description: "a Mailchimp API key",
    pattern: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/g,
    keywords: ["-us"],
    minEntropy: 3,
  },
  {
    kind: "stripe_key",
    description: "a Stripe secret, restricted or webhook key",
    pattern: /\b(?:(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9]{32,64})\b/g,
    keywords: ["sk_", "rk_", "whsec_"],
    minEntropy: 2,
  },
  {
    kind: "square_token",
    description: "a Square access token or application secret",
    pattern: /(?<![A-Za-z0-9+/])(?:EAAA[\w-]{60}|sq0atp-[\w-]{22}|sq0csp-[\w-]{43})(?![\w-])/g,
    keywords: ["eaaa", "sq0atp-", "sq0csp-"],
    minEntropy: 2,
  },
  {
    kind: "braintree_access_token",
    description: "a Braintree (PayPal) access token",
    pattern: /\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}\b/g,
    keywords: ["access_token$"],
  },
  {
    kind: "shopify_token",
    description: "a Shopify access token or shared secret",
    pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g,
    keywords: ["shpat_", "shpca_", "shppa_", "shpss_"],
    minEntropy: 2,
  },
  {
    kind: "shippo_api_token",
    description: "a Shippo API token",
    pattern: /\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b/g,
    keywords: ["shippo_"],
    minEntropy: 2,
  },
  {
    kind: "easypost_api_key",
    description: "an EasyPost API key",
    pattern: /\bEZ[AT]K[A-Za-z0-9]{54}\b/g,
    keywords: ["ezak", "eztk"],
    minEntropy: 2,
  },
  {
    kind: "duffel_api_token",
    description: "a Duffel API token",
    pattern: /\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}(?![\w=-])/g,
    keywords: ["duffel_"],
    minEntropy: 2,
  },
  {
    kind: "flutterwave_key",
    description: "a Flutterwave secret or encryption key",
    pattern: /\bFLWSECK(?:_TEST)?-[a-hA-H0-9]{32}-X\b|\bFLWSECK(?:_TEST)?-[a-hA-H0-9]{12}\b/g,
    keywords: ["flwseck"],
    minEntropy: 2,
  },
  {
    kind: "grafana_token",
    description: "a Grafana API key or service account token",
    pattern:
      /\b(?:eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})(?![\w+/=-])/g,
    keywords: ["eyjrijoi", "glc_", "glsa_"],
    minEntropy: 3,
  },
  {
    kind: "new_relic_key",
    description: "a New Relic API or insert key",
    pattern: /\b(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32}|NRJS-[a-f0-9]{19})(?![\w-])/g,
    keywords: ["nrak-", "nrii-", "nrjs-"],
    minEntropy: 3,
  },
  {
    kind: "dynatrace_token",
    description: "a Dynatrace API token",
    pattern: /\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b/g,
    keywords: ["dt0c01."],
    minEntropy: 4,
  },
] as const satisfies readonly SecretRule[];
