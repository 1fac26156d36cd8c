x {{x}}
y {{y}}
