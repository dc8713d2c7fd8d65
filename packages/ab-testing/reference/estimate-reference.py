"""Reference figures for packages/ab-testing/src/estimate.test.ts, computed without the closed forms
of msprt.ts / estimate.ts: the mSPRT boundary from the mixture integral (scipy.integrate.quad),
its root and the estimate's root by scipy.optimize.brentq, the power quantile by scipy.stats.norm.
Run: python3 packages/ab-testing/reference/estimate-reference.py"""
import math
from scipy import integrate, optimize, stats

ALPHA = 0.05
C = -2 * math.log(ALPHA)
TAU2 = (C + math.log(C + 1)) * 2 / 10_000  # msprt.ts: tuned at 10,000 impressions per variant


def log_mixture_ratio(z, w):
    # ln Lambda, Lambda = integral of N(z; t, 1) N(t; 0, tau2 / w) dt over N(z; 0, 1), z standardized;
    # the integrand is scaled by its value at its peak t* so that it cannot overflow.
    s = math.sqrt(TAU2 / w)
    g = lambda t: -0.5 * (z - t) ** 2 + 0.5 * z * z + stats.norm.logpdf(t, 0, s)
    peak = z * s * s / (1 + s * s)
    width = s / math.sqrt(1 + s * s)
    value, _ = integrate.quad(lambda t: math.exp(g(t) - g(peak)), peak - 40 * width, peak + 40 * width, limit=400, points=[peak])
    return g(peak) + math.log(value)


def boundary(w, alpha):
    return optimize.brentq(lambda z: log_mixture_ratio(z, w) - math.log(1 / alpha), 0.1, 40, xtol=1e-12)


def needed(rates, alpha=ALPHA):
    best, second = sorted(rates, reverse=True)[:2]
    delta, pooled = best - second, (best + second) / 2
    level = alpha / (len(rates) - 1)
    q = stats.norm.ppf(0.8)
    gap = lambda logn: delta / math.sqrt(pooled * (1 - pooled) * 2 / math.exp(logn)) - boundary(2 / math.exp(logn), level) - q
    return math.exp(optimize.brentq(gap, math.log(10), math.log(1e9), xtol=1e-10))


for rates in [(0.05, 0.04), (0.05, 0.06), (0.10, 0.08), (0.02, 0.025), (0.30, 0.27), (0.05, 0.045), (0.05, 0.04, 0.04)]:
    print(f"  [{list(rates)}, {needed(rates)!r}],")
