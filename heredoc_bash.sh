name=world
while IFS= read -r l; do echo "$l"; done <<END
hello $name, $((6 * 7))
  indented \\$ literal ${name#w}
END
while IFS= read -r l; do echo "$l"; done <<-END
	tabs stripped for $name
	END
