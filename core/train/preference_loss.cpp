// Preference losses and metrics (see preference_loss.h); the formulas are TRL 1.16's (dpo_trainer.py _compute_loss,
// experimental/cpo cpo_loss, experimental/orpo odds_ratio_loss), written here from their definitions.
#include "core/train/preference_loss.h"

#include <cmath>

namespace fts {

namespace {

namespace F = torch::nn::functional;

double meanOf(const torch::Tensor& t) { return t.numel() == 0 ? 0.0 : t.to(torch::kFloat64).mean().item<double>(); }

// log(1 - exp(x)) for x < 0, on the branch that keeps precision (TRL's log1mexp).
torch::Tensor log1mexp(const torch::Tensor& x) {
    return torch::where(x > -std::log(2.0), torch::log(-torch::expm1(x)), torch::log1p(-torch::exp(x)));
}

// The reward metrics every objective logs, from the per-pair chosen / rejected rewards and log-probs.
void rewardMetrics(std::map<std::string, double>& m, const torch::Tensor& chosenRewards,
                   const torch::Tensor& rejectedRewards, const torch::Tensor& chosenLogps,
                   const torch::Tensor& rejectedLogps) {
    m["rewards/chosen"] = meanOf(chosenRewards);
    m["rewards/rejected"] = meanOf(rejectedRewards);
    m["rewards/accuracies"] = meanOf((chosenRewards > rejectedRewards).to(torch::kFloat32));
    m["rewards/margins"] = meanOf(chosenRewards - rejectedRewards);
    m["logps/chosen"] = meanOf(chosenLogps);
    m["logps/rejected"] = meanOf(rejectedLogps);
}

torch::Tensor dpoTerm(const std::string& type, const PreferenceSection& p, const torch::Tensor& cr,
                      const torch::Tensor& rr, const torch::Tensor& chosenPositions,
                      const torch::Tensor& rejectedPositions, const torch::Tensor& policyChosen,
                      const torch::Tensor& policyRejected, const torch::Tensor& refChosen,
                      const torch::Tensor& refRejected, const torch::Tensor& logits, const torch::Tensor& labels) {
    const double beta = p.beta, ls = p.labelSmoothing;
    const torch::Tensor delta = cr - rr;
    if (type == "sigmoid") return -F::logsigmoid(beta * delta);
    if (type == "hinge") return torch::relu(1 - beta * delta);
    if (type == "ipo" || type == "sigmoid_norm") {  // length-normalised log-ratios (TRL: unshifted mask counts)
        const torch::Tensor d = cr / chosenPositions.clamp_min(1.0) - rr / rejectedPositions.clamp_min(1.0);
        return type == "ipo" ? (d - 1 / (2 * beta)).pow(2) : -F::logsigmoid(beta * d);
    }
    if (type == "robust")
        return (-(1 - ls) * F::logsigmoid(beta * delta) + ls * F::logsigmoid(-beta * delta)) / (1 - 2 * ls);
    if (type == "exo_pair")
        return torch::sigmoid(beta * delta) * (F::logsigmoid(beta * delta) - std::log1p(-ls)) +
               torch::sigmoid(-beta * delta) * (F::logsigmoid(-beta * delta) - std::log(ls));
    if (type == "nca_pair")
        return -F::logsigmoid(beta * cr) - 0.5 * F::logsigmoid(-beta * cr) - 0.5 * F::logsigmoid(-beta * rr);
    if (type == "bco_pair") return -F::logsigmoid(beta * cr) - F::logsigmoid(-beta * rr);
    if (type == "sppo_hard") return (cr - 0.5 / beta).pow(2) + (rr + 0.5 / beta).pow(2);
    if (type == "aot" || type == "aot_unpaired") {  // the batch's log-ratios ranked against each other
        const torch::Tensor d = type == "aot" ? std::get<0>(torch::sort(policyChosen - policyRejected, 0)) -
                                                    std::get<0>(torch::sort(refChosen - refRejected, 0))
                                              : std::get<0>(torch::sort(cr, 0)) - std::get<0>(torch::sort(rr, 0));
        return -F::logsigmoid(beta * d) * (1 - ls) - F::logsigmoid(-beta * d) * ls;
    }
    if (type == "apo_zero") return 1 - torch::sigmoid(beta * cr) + torch::sigmoid(beta * rr);
    if (type == "apo_down") return torch::sigmoid(beta * cr) + 1 - torch::sigmoid(beta * (cr - rr));
    if (type == "discopop") {
        const torch::Tensor l = beta * delta;
        const torch::Tensor m = torch::sigmoid(l / p.discopopTau);
        return -F::logsigmoid(l) * (1 - m) + torch::exp(-l) * m;
    }
    if (type == "sft") {  // RPO: the chosen completions' NLL, one value for the micro-batch
        const torch::Tensor nll = chosenNll(logits, labels);
        return nll.expand({cr.size(0)});
    }
    throw std::invalid_argument("preference.loss_type: unknown \"" + type + "\"");
}

}  // namespace

CompletionScores completionScores(const torch::Tensor& logits, const torch::Tensor& labels, bool withLogitMeans) {
    const torch::Tensor shifted = labels.slice(1, 1);  // position t predicts labels[:, t + 1]
    const torch::Tensor mask = shifted != -100;
    const torch::Tensor z = logits.slice(1, 0, -1).to(torch::kFloat32);
    const torch::Tensor target = shifted.clamp_min(0).unsqueeze(-1);
    const torch::Tensor perToken = (z.gather(-1, target).squeeze(-1) - torch::logsumexp(z, -1)) * mask;
    CompletionScores s;
    s.logps = perToken.sum(1);
    s.tokens = mask.sum(1).to(torch::kFloat32);
    if (withLogitMeans) {
        torch::NoGradGuard noGrad;
        s.meanLogitSum = (z.detach().mean(-1) * mask).sum(1);
    }
    return s;
}

torch::Tensor chosenNll(const torch::Tensor& logits, const torch::Tensor& labels) {
    const int64_t pairs = logits.size(0) / 2;
    const torch::Tensor z = logits.slice(0, 0, pairs).slice(1, 0, -1).to(torch::kFloat32);
    const torch::Tensor y = labels.slice(0, 0, pairs).slice(1, 1);
    return F::cross_entropy(z.reshape({-1, z.size(-1)}), y.reshape({-1}),
                            F::CrossEntropyFuncOptions().ignore_index(-100));
}

PreferenceLoss preferenceLoss(const std::string& objective, const PreferenceSection& p, const torch::Tensor& logits,
                              const torch::Tensor& labels, const CompletionScores& policy,
                              const torch::Tensor& reference, const torch::Tensor& nllLabels) {
    const int64_t pairs = policy.logps.size(0) / 2;
    const torch::Tensor chosen = policy.logps.slice(0, 0, pairs), rejected = policy.logps.slice(0, pairs);
    const torch::Tensor chosenTokens = policy.tokens.slice(0, 0, pairs), rejectedTokens = policy.tokens.slice(0, pairs);
    PreferenceLoss out;
    std::map<std::string, double>& m = out.metrics;
    if (objective == "dpo") {
        const torch::Tensor refChosen = reference.slice(0, 0, pairs), refRejected = reference.slice(0, pairs);
        const torch::Tensor cr = chosen - refChosen, rr = rejected - refRejected;
        // ipo / sigmoid_norm count the completion positions of the sequence itself (TRL's unshifted mask)
        const torch::Tensor positions = (labels != -100).sum(1).to(torch::kFloat32);
        torch::Tensor loss = torch::zeros({}, chosen.options());
        for (size_t k = 0; k < p.lossTypes.size(); ++k) {
            const double weight = p.lossWeights.empty() ? 1.0 : p.lossWeights[k];
            loss = loss + weight * dpoTerm(p.lossTypes[k], p, cr, rr, positions.slice(0, 0, pairs),
                                           positions.slice(0, pairs), chosen, rejected, refChosen, refRejected, logits,
                                           labels)
                                       .mean();
        }
        out.loss = loss;
        torch::NoGradGuard noGrad;
        rewardMetrics(m, p.beta * cr.detach(), p.beta * rr.detach(), chosen.detach(), rejected.detach());
        // the logits' vocabulary mean over the completion tokens, token-weighted per side
        const double ct = chosenTokens.sum().item<double>(), rt = rejectedTokens.sum().item<double>();
        m["logits/chosen"] = ct > 0 ? policy.meanLogitSum.slice(0, 0, pairs).sum().item<double>() / ct : 0.0;
        m["logits/rejected"] = rt > 0 ? policy.meanLogitSum.slice(0, pairs).sum().item<double>() / rt : 0.0;
        return out;
    }
    // SimPO and ORPO: the completions' mean log-prob per token, no reference
    const torch::Tensor c = chosen / chosenTokens, r = rejected / rejectedTokens;
    const double beta = p.beta;
    torch::Tensor nll;
    if (objective == "simpo") {
        const double ls = p.labelSmoothing;
        const torch::Tensor z = c - r - p.simpoGamma / beta;
        const torch::Tensor losses = -F::logsigmoid(beta * z) * (1 - ls) - F::logsigmoid(-beta * z) * ls;
        nll = p.cpoAlpha == 0 ? torch::zeros({}, c.options()) : chosenNll(logits, labels);
        out.loss = losses.mean() + p.cpoAlpha * nll;
    } else if (objective == "orpo") {
        const torch::Tensor logOdds = (c - r) - (log1mexp(c) - log1mexp(r));
        const torch::Tensor ratio = F::logsigmoid(logOdds);
        nll = chosenNll(logits, nllLabels);
        out.loss = nll - (beta * ratio).mean();
        m["log_odds_ratio"] = meanOf(ratio.detach());
        m["log_odds_chosen"] = meanOf(logOdds.detach());
    } else {
        throw std::invalid_argument("training.objective: not a preference objective: \"" + objective + "\"");
    }
    torch::NoGradGuard noGrad;
    rewardMetrics(m, beta * c.detach(), beta * r.detach(), c.detach(), r.detach());
    m["nll_loss"] = nll.detach().item<double>();
    // the mean of the whole logits tensor of each side (CPO), without its last position (ORPO), as TRL logs them
    const torch::Tensor z = objective == "orpo" ? logits.slice(1, 0, -1) : logits;
    m["logits/chosen"] = z.slice(0, 0, pairs).to(torch::kFloat64).mean().item<double>();
    m["logits/rejected"] = z.slice(0, pairs).to(torch::kFloat64).mean().item<double>();
    return out;
}

PreferenceLoss ktoLoss(const PreferenceSection& p, const CompletionScores& policy, const torch::Tensor& reference,
                       const torch::Tensor& desirable, double kl) {
    const torch::Tensor ratio = policy.logps - reference;  // (B)
    const double beta = p.beta;
    const bool apo = !p.lossTypes.empty() && p.lossTypes[0] == "apo_zero_unpaired";
    const torch::Tensor good = apo ? 1 - torch::sigmoid(beta * ratio) : 1 - torch::sigmoid(beta * (ratio - kl));
    const torch::Tensor bad = apo ? torch::sigmoid(beta * ratio) : 1 - torch::sigmoid(beta * (kl - ratio));
    const torch::Tensor losses = torch::where(desirable, p.desirableWeight * good, p.undesirableWeight * bad);
    PreferenceLoss out;
    out.loss = losses.mean();
    torch::NoGradGuard noGrad;
    std::map<std::string, double>& m = out.metrics;
    m["kl"] = kl;
    const torch::Tensor rewards = beta * ratio.detach();
    const double nGood = desirable.sum().item<double>(), nBad = double(desirable.size(0)) - nGood;
    auto side = [&](const char* name, const torch::Tensor& mask, double n) {
        if (n <= 0) return;
        const torch::Tensor f = mask.to(torch::kFloat64);
        m[std::string("rewards/") + name] = (rewards.to(torch::kFloat64) * f).sum().item<double>() / n;
        m[std::string("logps/") + name] = (policy.logps.detach().to(torch::kFloat64) * f).sum().item<double>() / n;
        const double tokens = (policy.tokens.to(torch::kFloat64) * f).sum().item<double>();
        if (tokens > 0)
            m[std::string("logits/") + name] =
                (policy.meanLogitSum.to(torch::kFloat64) * f).sum().item<double>() / tokens;
    };
    side("chosen", desirable, nGood);
    side("rejected", ~desirable, nBad);
    if (nGood > 0 && nBad > 0) m["rewards/margins"] = m["rewards/chosen"] - m["rewards/rejected"];
    return out;
}

}  // namespace fts
