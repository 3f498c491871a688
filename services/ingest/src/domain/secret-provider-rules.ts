// Provider credentials recognised by a prefix and a length that nothing else uses: code hosts,
// package registries, clouds and infrastructure tools. Ported as data from gitleaks' default
// rules (github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT licence), with its entropy
// floors, plus a few formats it lacks (Azure storage keys and SAS tokens, Docker Hub and NuGet
// keys, Google OAuth tokens, CircleCI, Buildkite, Render and crates.io tokens).
import { assignmentSource, type SecretRule } from "./secret-rule.ts";

const hasDigit = (value: string) => /\d/.test(value);

/** The run of URL characters around a match, to look at the rest of a signed URL. */
function urlAround(text: string, start: number, end: number): string {
  let from = start;
  let to = end;
  while (from > 0 && start - from < 2000 && !/[\s'"<>]/.test(text[from - 1] ?? "")) from--;
  while (to < text.length && to - end < 2000 && !/[\s'"<>]/.test(text[to] ?? "")) to++;
  return text.slice(from, to);
}

export const codeAndInfrastructureRules = [
  {
    kind: "aws_access_key",
    description: "an AWS access key id",
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g,
    keywords: ["a3t", "akia", "asia", "abia", "acca"],
    minEntropy: 3,
  },
  {
    kind: "aws_bedrock_api_key",
    description: "an Amazon Bedrock API key",
    pattern: /\bABSK[A-Za-z0-9+/]{109,269}={0,2}/g,
    keywords: ["absk"],
    minEntropy: 3,
  },
  {
    kind: "github_token",
    description: "a GitHub token",
    // No entropy floor: the prefix and length are specific enough, and a blanked-out
    // `ghp_xxxx…` is caught as a placeholder.
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})\b/g,
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  },
  {
    kind: "gitlab_token",
    description: "a GitLab token",
    pattern:
      /\b(?:glpat-[\w-]{20,300}(?:\.[0-9a-z]{9})?|glrt-[\w-]{20,300}(?:\.[0-9a-z]{9})?|gldt-[\w-]{20}|glptt-[0-9a-f]{40}|glcbt-[0-9a-zA-Z]{1,5}_[\w-]{20}|glft-[\w-]{20}|glimt-[\w-]{25}|glagent-[\w-]{50}|gloas-[\w-]{64}|glsoat-[\w-]{20}|glffct-[\w-]{20}|GR1348941[\w-]{20}|_gitlab_session=[0-9a-z]{32})(?![\w-])/g,
    keywords: [
      "glpat-",
      "glrt-",
      "gldt-",
      "glptt-",
      "glcbt-",
      "glft-",
      "glimt-",
      "glagent-",
      "gloas-",
      "glsoat-",
      "glffct-",
      "gr1348941",
      "_gitlab_session=",
    ],
    minEntropy: 3,
  },
  {
    kind: "npm_token",
    description: "an npm access token",
    pattern: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
    keywords: ["npm_"],
    minEntropy: 2,
  },
  {
    kind: "pypi_token",
    description: "a PyPI upload token",
    pattern: /\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,1000}/g,
    keywords: ["pypi-agei", "pypi-agen"],
    minEntropy: 3,
  },
  {
    kind: "rubygems_token",
    description: "a RubyGems API key",
    pattern: /\brubygems_[a-f0-9]{48}\b/g,
    keywords: ["rubygems_"],
    minEntropy: 2,
  },
  {
    kind: "nuget_api_key",
    description: "a NuGet API key",
    pattern: /\boy2[a-z0-9]{43}\b/g,
    keywords: ["oy2"],
    minEntropy: 3.5,
  },
  {
    kind: "docker_hub_token",
    description: "a Docker Hub access token",
    pattern: /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,64}(?![\w-])/g,
    keywords: ["dckr_"],
    minEntropy: 3,
  },
  {
    kind: "crates_io_token",
    description: "a crates.io API token",
    pattern: /\bcio[A-Za-z0-9]{32}\b/g,
    keywords: ["cio"],
    minEntropy: 3.5,
    allow: ({ value }) => !hasDigit(value),
  },
  {
    kind: "clojars_token",
    description: "a Clojars deploy token",
    pattern: /\bCLOJARS_[A-Za-z0-9]{60}\b/gi,
    keywords: ["clojars_"],
    minEntropy: 2,
  },
  {
    kind: "azure_storage_account_key",
    description: "an Azure storage account key",
    pattern: new RegExp(
      `\\bAccountKey=(?<secret>[A-Za-z0-9+/]{86}==)|${assignmentSource(
        "azure[_.-]?storage[_.-]?(?:account[_.-]?)?key|storage[_.-]?account[_.-]?key",
        "[A-Za-z0-9+/]{86}==",
      )}`,
      "gi",
    ),
    keywords: ["accountkey=", "storage"],
    minEntropy: 4,
  },
  {
    kind: "azure_shared_access_key",
    description: "an Azure shared access key",
    pattern: /\bSharedAccessKey=(?<secret>[A-Za-z0-9+/]{43}=)/gi,
    keywords: ["sharedaccesskey="],
    minEntropy: 4,
  },
  {
    kind: "azure_sas_token",
    description: "an Azure shared access signature",
    pattern: /[?&;]sig=(?<secret>(?:[A-Za-z0-9+/]|%[0-9A-Fa-f]{2}){40,150})/g,
    keywords: ["sig="],
    minEntropy: 3.5,
    // Only a signature that sits beside a storage service version (`sv=2024-…`) is a SAS.
    allow: ({ text, start, end }) => !/\bsv=\d{4}-\d\d-\d\d/.test(urlAround(text, start, end)),
  },
  {
    kind: "azure_ad_client_secret",
    description: "an Azure AD (Entra ID) client secret",
    pattern: /(?<![\w~.-])(?<secret>[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?![\w~.-])/g,
    keywords: ["q~"],
    minEntropy: 3,
  },
  {
    kind: "google_api_key",
    description: "a Google API key",
    pattern: /\bAIza[\w-]{35}(?![\w-])/g,
    keywords: ["aiza"],
    minEntropy: 4,
  },
  {
    kind: "google_oauth_token",
    description: "a Google OAuth access or refresh token",
    pattern: /\b(?:ya29\.[0-9A-Za-z_-]{30,2000}|1\/\/0[0-9A-Za-z_-]{30,500})(?![\w-])/g,
    keywords: ["ya29.", "1//0"],
    minEntropy: 3.5,
  },
  {
    kind: "google_oauth_client_secret",
    description: "a Google OAuth client secret",
    pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![\w-])/g,
    keywords: ["gocspx-"],
    minEntropy: 3,
  },
  {
    kind: "alibaba_access_key",
    description: "an Alibaba Cloud access key",
    pattern: new RegExp(
      `\\b(?<secret>LTAI[A-Za-z0-9]{20})(?![A-Za-z0-9])|${assignmentSource("alibaba", "[a-z0-9]{30}")}`,
      "gi",
    ),
    keywords: ["ltai", "alibaba"],
    minEntropy: 2,
  },
  {
    kind: "digitalocean_token",
    description: "a DigitalOcean token",
    pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
    keywords: ["doo_v1_", "dop_v1_", "dor_v1_"],
    minEntropy: 3,
  },
  {
    kind: "hashicorp_vault_token",
    description: "a HashiCorp Vault token",
    pattern: /\b(?:hvs\.[\w-]{90,120}|hvb\.[\w-]{138,300}|s\.[A-Za-z0-9]{24})(?![\w-])/g,
    keywords: ["hvs.", "hvb.", "s."],
    minEntropy: 3.5,
    // The legacy `s.` form needs letters and digits, or it is a word after `s.`.
    allow: ({ value }) => /^s\.(?:[A-Za-z]+|\d+)$/.test(value),
  },
  {
    kind: "terraform_cloud_token",
    description: "a Terraform Cloud (HCP Terraform) API token",
    pattern: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![\w=-])/g,
    keywords: ["atlasv1"],
    minEntropy: 3.5,
  },
  {
    kind: "circleci_token",
    description: "a CircleCI personal API token",
    pattern: /\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b/g,
    keywords: ["ccipat_"],
    minEntropy: 3,
  },
  {
    kind: "buildkite_token",
    description: "a Buildkite API access token",
    pattern: /\bbkua_[a-f0-9]{40}\b/g,
    keywords: ["bkua_"],
    minEntropy: 3,
  },
  {
    kind: "render_api_key",
    description: "a Render API key",
    pattern: /\brnd_[A-Za-z0-9]{32}\b/g,
    keywords: ["rnd_"],
    minEntropy: 3,
  },
  {
    kind: "pulumi_token",
    description: "a Pulumi access token",
    pattern: /\bpul-[a-f0-9]{40}\b/g,
    keywords: ["pul-"],
    minEntropy: 2,
  },
  {
    kind: "doppler_token",
    description: "a Doppler token",
    pattern: /\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b/g,
    keywords: ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
    minEntropy: 2,
  },
  {
    kind: "databricks_token",
    description: "a Databricks access token",
    pattern: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g,
    keywords: ["dapi"],
    minEntropy: 3,
  },
  {
    kind: "flyio_token",
    description: "a Fly.io access token",
    pattern:
      /\b(?:fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,4000}={0,3}|fm2_[A-Za-z0-9+/]{100,4000}={0,3})(?![\w+/=-])/g,
    keywords: ["fo1_", "fm1", "fm2_"],
    minEntropy: 4,
  },
  {
    kind: "planetscale_token",
    description: "a PlanetScale token or password",
    pattern: /\bpscale_(?:tkn|oauth|pw)_[\w=.-]{31,63}[\w=-](?![\w=.-])/g,
    keywords: ["pscale_"],
    minEntropy: 3,
  },
  {
    kind: "scalingo_api_token",
    description: "a Scalingo API token",
    pattern: /\btk-us-[\w-]{48}(?![\w-])/g,
    keywords: ["tk-us-"],
    minEntropy: 2,
  },
  {
    kind: "openshift_user_token",
    description: "an OpenShift user token",
    pattern: /\bsha256~[\w-]{43}(?![\w-])/g,
    keywords: ["sha256~"],
    minEntropy: 3.5,
  },
  {
    kind: "harness_api_key",
    description: "a Harness access token",
    pattern: /\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b/g,
    keywords: ["pat.", "sat."],
    minEntropy: 3,
  },
  {
    kind: "octopus_deploy_api_key",
    description: "an Octopus Deploy API key",
    pattern: /\bAPI-[A-Z0-9]{26}\b/g,
    keywords: ["api-"],
    minEntropy: 3,
    allow: ({ value }) => !hasDigit(value.slice(4)),
  },
  {
    kind: "infracost_api_key",
    description: "an Infracost API key",
    pattern: /\bico-[A-Za-z0-9]{32}\b/g,
    keywords: ["ico-"],
    minEntropy: 3,
  },
  {
    kind: "defined_networking_token",
    description: "a Defined Networking API token",
    pattern: /\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}(?![\w=-])/g,
    keywords: ["dnkey-"],
  },
  {
    kind: "sourcegraph_token",
    description: "a Sourcegraph access token",
    pattern: /\bsgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}\b/g,
    keywords: ["sgp_"],
    minEntropy: 3,
  },
  {
    kind: "onepassword_token",
    description: "a 1Password secret key or service account token",
    pattern:
      /\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b|\bops_eyJ[A-Za-z0-9+/]{250,8000}={0,3}/g,
    keywords: ["a3-", "ops_"],
    minEntropy: 3.8,
  },
] as const satisfies readonly SecretRule[];
