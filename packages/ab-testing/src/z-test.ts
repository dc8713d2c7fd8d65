/**
 * Two-sided two-proportion z-test with the pooled standard error:
 *   p = (c1 + c2) / (n1 + n2),  z = (c1/n1 − c2/n2) / sqrt(p (1 − p) (1/n1 + 1/n2)),
 *   p-value = 2 · (1 − Φ(|z|)) = erfc(|z| / √2).
 * When both rates are 0 or both 1 there is no variance and no evidence: z = 0, p-value = 1.
 */
export function twoProportionZTest(
  a: { clicks: number; impressions: number },
  b: { clicks: number; impressions: number },
): { z: number; pValue: number } {
  if (a.impressions <= 0 || b.impressions <= 0) return { z: 0, pValue: 1 };
  const pooled = (a.clicks + b.clicks) / (a.impressions + b.impressions);
  const variance = pooled * (1 - pooled) * (1 / a.impressions + 1 / b.impressions);
  if (variance <= 0) return { z: 0, pValue: 1 };
  const z = (a.clicks / a.impressions - b.clicks / b.impressions) / Math.sqrt(variance);
  return { z, pValue: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}

/**
 * Complementary error function, Chebyshev fit from Numerical Recipes (`erfcc`, 2nd ed. §6.2):
 * fractional error below 1.2e-7 everywhere, far finer than a 0.05 threshold needs.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
