# The compiled sensor logs byte for byte what the script path logs on every public capture beside
# the checkout (../shared/traces/public, where there is one).
# @TEST-REQUIRES: zeek -N CritPath::Sensor
# @TEST-REQUIRES: test -d $PUBLIC_TRACES
# @TEST-EXEC: find $PUBLIC_TRACES -type f ! -name '*.md' -print0 | sort -z | xargs -0 $SCRIPTS/paths-agree > agreement
# @TEST-EXEC: btest-diff agreement
