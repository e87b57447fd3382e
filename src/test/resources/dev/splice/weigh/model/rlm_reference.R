# Independent oracle for Splice's Huber IRLS: MASS::rlm with psi.huber, k = 1.345.
# Usage: Rscript rlm_reference.R DATA.csv ACC MAXIT WEIGHTED
# DATA.csv has columns y, run, O, D, L and h (prior inverse-variance weights).
# Prints one line per coefficient: name and value with 17 significant digits.
suppressPackageStartupMessages(library(MASS))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
d$run <- factor(d$run, levels = sort(unique(d$run)))
acc <- as.numeric(args[2])
maxit <- as.integer(args[3])
weighted <- args[4] == "1"
fit <- if (weighted) {
  rlm(y ~ run + O + D + L, data = d, contrasts = list(run = "contr.sum"),
      psi = psi.huber, k = 1.345, weights = h, wt.method = "inv.var", acc = acc, maxit = maxit)
} else {
  rlm(y ~ run + O + D + L, data = d, contrasts = list(run = "contr.sum"),
      psi = psi.huber, k = 1.345, acc = acc, maxit = maxit)
}
cf <- coef(fit)
for (i in seq_along(cf)) cat(names(cf)[i], sprintf("%.17g", cf[[i]]), "\n")
cat("converged", if (fit$converged) 1 else 0, "\n")
cat("scale", sprintf("%.17g", fit$s), "\n")
