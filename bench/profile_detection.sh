. bench/device_env.sh
D=/tmp/det
timeout 200 $B/tools/vkc run $D/ssdlite.onnx --input image=$D/ssdlite.input.npy --bench 5 --profile > $D/prof.txt 2>&1
head -5 $D/prof.txt; grep -E '^[a-z_]+ ' $D/prof.txt | sort -k5 -g -r | head -25
awk '$4=="cpu"{c+=$5} $4=="gpu"{g+=$5} END{print "cpu ms", c, "gpu ms", g}' $D/prof.txt
grep -c ' cpu ' $D/prof.txt; grep -c ' gpu ' $D/prof.txt
tail -4 $D/prof.txt
python3 - <<'PY'
import numpy as np
d="/tmp/det"
a=np.load(d+"/retinanet.ort.boxes.npy"); b=np.load(d+"/o_retinanet_gpu/boxes.npy")
sa=np.load(d+"/retinanet.ort.scores.npy"); sb=np.load(d+"/o_retinanet_gpu/scores.npy")
la=np.load(d+"/retinanet.ort.labels.npy"); lb=np.load(d+"/o_retinanet_gpu/labels.npy")
bad=np.where(np.abs(a-b).max(1)>1e-2)[0]
print("rows differing:", bad)
for i in bad[:6]: print(i, a[i], sa[i], la[i], "|", b[i], sb[i], lb[i])
PY
