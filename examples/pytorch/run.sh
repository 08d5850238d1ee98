#!/bin/sh
# Train the digits examples with PyTorch and check them with implicitbias.
#
#   examples/pytorch/run.sh [OUTDIR]      # default: a temporary directory
#
# Installs Debian's PyTorch and NumPy when they are missing (the project
# installs nothing by hand). The committed runs in check/testdata/pytorch were
# written once by:
#
#   for v in adam wd bias; do /usr/bin/python3 examples/pytorch/train_digits.py --variant $v --pairs 5 --out check/testdata/pytorch/digits_$v.npz; done
#   /usr/bin/python3 examples/pytorch/train_digits.py --variant gd --pairs 30 --out check/testdata/pytorch/digits_gd.npz
#   /usr/bin/python3 examples/pytorch/train_digits.py --variant gd --act relu3 --loss exp --lr 0.5 --pairs 8 --out check/testdata/pytorch/digits_relu3_exp.npz
#   /usr/bin/python3 examples/pytorch/mapping_cases.py check/testdata/pytorch
set -eu
cd "$(dirname "$0")/../.."
if ! /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
	apt-get install -y python3-torch python3-numpy
fi
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/implicitbias" ./cmd/implicitbias
for v in gd adam wd bias; do
	/usr/bin/python3 examples/pytorch/train_digits.py --variant "$v" --out "$out/digits_$v.npz"
	"$out/implicitbias" check --run "$out/digits_$v.npz" --report "$out/report_$v" || true
done
echo "runs, tables and reports in $out"
